package dev.ibex.cm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/** Every test runs under the build's default timeout (root pom: a hang fails fast with a thread dump). */
@ExtendWith(GlobalTimeoutTest.Context.class)
class GlobalTimeoutTest {
    /** Hands the test its {@link ExtensionContext}, whose configuration is the launcher's. */
    static final class Context implements ParameterResolver {
        @Override
        public boolean supportsParameter(ParameterContext p, ExtensionContext e) {
            return p.getParameter().getType() == ExtensionContext.class;
        }

        @Override
        public Object resolveParameter(ParameterContext p, ExtensionContext e) {
            return e;
        }
    }

    @Test
    void theDefaultTimeoutIsConfigured(ExtensionContext context) {
        assertThat(context.getConfigurationParameter("junit.jupiter.execution.timeout.default"))
                .as("junit.jupiter.execution.timeout.default").hasValueSatisfying(v -> assertThat(v).isNotBlank());
        assertThat(context.getConfigurationParameter("junit.jupiter.execution.timeout.threaddump.enabled"))
                .hasValue("true");
    }
}
