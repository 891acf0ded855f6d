/**
 * The JSON mirror of the native API under {@code /treecat/v1}: the same operations as the gRPC
 * service, for curl users and scripts. Thin JAX-RS resources over {@link
 * io.treecat.core.service.CatalogService}; every failure leaves through the one table in {@link
 * io.treecat.rest.nativeapi.ApiErrors}.
 */
package io.treecat.rest.nativeapi;
