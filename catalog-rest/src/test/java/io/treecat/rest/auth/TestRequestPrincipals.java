package io.treecat.rest.auth;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.treecat.lakehouse.auth.Principal;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A request's principal fails closed: nothing bound is an error, never anonymous. */
class TestRequestPrincipals {
    @AfterEach
    void clear() {
        RequestPrincipals.unbind();
    }

    @Test
    void noBoundPrincipalIsAnErrorNotAnonymous() {
        assertThatThrownBy(RequestPrincipals::current)
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("did not pass the authentication filter");
    }

    @Test
    void aBoundPrincipalIsCurrentUntilTheResponseFilterUnbindsIt() {
        RequestPrincipals.bind(new Principal("etl"));
        assertThat(RequestPrincipals.current()).isEqualTo(new Principal("etl"));

        new AnonymousPrincipalFilter().filter(null, null);
        assertThatThrownBy(RequestPrincipals::current).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void anonymousIsBoundOnlyByTheAuthOffFilter() {
        new AnonymousPrincipalFilter().filter(null);
        assertThat(RequestPrincipals.current()).isEqualTo(Principal.ANONYMOUS);
    }
}
