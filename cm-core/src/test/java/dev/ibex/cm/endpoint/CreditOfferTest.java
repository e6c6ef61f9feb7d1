package dev.ibex.cm.endpoint;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The credit offer's trailer: what each end says about credits, large messages and the rendezvous. */
class CreditOfferTest {
    @Test
    void theRendezvousFlagTravelsWithLargeMessagesOnly() {
        CreditOffer sent = CreditOffer.of(64, 1 << 20, true, true);
        CreditOffer got = CreditOffer.of(sent.append(new byte[] {1, 2}, 56));
        assertThat(got).isEqualTo(sent);
        assertThat(got.rendezvous()).isTrue();
        assertThat(got.maxMessageSize()).isEqualTo(1 << 20);
        assertThat(CreditOffer.of(CreditOffer.of(64, 1 << 20, false, true).append(new byte[0], 56)).rendezvous()).isFalse();
        // one buffer per message: nothing to read by rendezvous, so the flag is not sent
        assertThat(CreditOffer.of(64, 1, true, true).rendezvous()).isFalse();
    }

    @Test
    void anEndBeforeTheRendezvousOffersNone() {
        byte[] old = CreditOffer.of(64, 1 << 20, true, true).append(new byte[0], 56);
        old[56 - CreditOffer.SIZE + 4] = 1 | 2; // credits and large messages, as ends before the rendezvous wrote
        CreditOffer got = CreditOffer.of(old);
        assertThat(got.rendezvous()).isFalse();
        assertThat(got.maxMessageSize()).isEqualTo(1 << 20);
        assertThat(got.creditsRide()).as("nor do they take credits riding in messages").isFalse();
    }

    @Test
    void creditsRideInMessagesOnlyWhenTheEndSaysSo() {
        assertThat(CreditOffer.of(CreditOffer.of(64, 1 << 20, true, true).append(new byte[0], 56)).creditsRide())
                .isTrue();
        CreditOffer without = CreditOffer.of(CreditOffer.of(64, 1 << 20, true, false).append(new byte[0], 56));
        assertThat(without.creditsRide()).isFalse();
        assertThat(without.rendezvous()).as("the other flags are kept").isTrue();
        assertThat(without.grant()).isEqualTo(64);
    }
}
