/**
 * Authentication on the application port (docs/security.md): the bearer-token filter in front of the Iceberg REST
 * routes and the native API, Iceberg's OAuth2 token endpoint ({@code POST /v1/oauth/tokens}) for built-in principals,
 * and the native API's routes that manage them. The principal a request proved travels in its {@code
 * SecurityContext} and on the request thread ({@link io.treecat.rest.auth.RequestPrincipals}); resources name it in every
 * {@code Access}.
 */
package io.treecat.rest.auth;
