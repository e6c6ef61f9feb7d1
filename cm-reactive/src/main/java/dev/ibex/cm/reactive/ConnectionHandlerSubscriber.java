package dev.ibex.cm.reactive;

import java.util.function.Function;
import org.reactivestreams.Publisher;
import org.reactivestreams.Subscription;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * Runs a user's {@code handle(connection -> Publisher<Void>)} on a connection, as reactor-netty does: when the
 * publisher terminates (completes or fails) the connection is disposed; when the connection closes first, the
 * handler's subscription is cancelled. The handler sees the {@link Context} of whoever bound the server or
 * subscribed to {@code connect()}.
 */
final class ConnectionHandlerSubscriber implements CoreSubscriber<Void> {
    private static final Logger LOG = LoggerFactory.getLogger(ConnectionHandlerSubscriber.class);

    private final RdmaConnection connection;
    private final Context context;
    private volatile Subscription subscription;
    private volatile Disposable closeWatch;
    private volatile boolean done;

    private ConnectionHandlerSubscriber(RdmaConnection connection, Context context) {
        this.connection = connection;
        this.context = context;
    }

    /** Applies {@code handler} to {@code connection} and subscribes (on the caller's thread, the loop). */
    static void run(RdmaConnection connection, Function<? super RdmaConnection, ? extends Publisher<Void>> handler,
            Context context) {
        Publisher<Void> p;
        try {
            p = handler.apply(connection);
        } catch (Throwable t) {
            LOG.warn("the handler of {} threw; disposing it", connection, t);
            connection.dispose();
            return;
        }
        if (p == null) {
            connection.dispose();
            return;
        }
        ConnectionHandlerSubscriber s = new ConnectionHandlerSubscriber(connection, context);
        s.closeWatch = connection.onDispose().subscribe(null, null, s::cancel);
        p.subscribe(s);
    }

    @Override
    public Context currentContext() {
        return context;
    }

    @Override
    public void onSubscribe(Subscription s) {
        if (Operators.validate(subscription, s)) {
            subscription = s;
            if (done) {
                s.cancel();
            } else {
                s.request(Long.MAX_VALUE);
            }
        }
    }

    @Override
    public void onNext(Void v) {
        // a Publisher<Void> emits nothing
    }

    @Override
    public void onError(Throwable t) {
        if (!done) {
            done = true;
            LOG.debug("the handler of {} failed; disposing it", connection, t);
            connection.dispose();
        }
    }

    @Override
    public void onComplete() {
        if (!done) {
            done = true;
            connection.dispose();
        }
    }

    private void cancel() {
        done = true;
        Subscription s = subscription;
        if (s != null) {
            s.cancel();
        }
        Disposable w = closeWatch;
        if (w != null) {
            w.dispose();
        }
    }
}
