package io.treecat.rest.nativeapi;

import static java.util.Objects.requireNonNull;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerRequestFilter;
import jakarta.ws.rs.container.DynamicFeature;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.FeatureContext;
import jakarta.ws.rs.core.HttpHeaders;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.time.Duration;

/**
 * Puts a size limit on each resource method's request body: a declared {@code Content-Length} over
 * the limit is refused before anything is read, and a chunked body is counted as it streams and
 * refused the moment it passes the limit. Both end in a 413 from {@link ApiErrors}.
 *
 * <p>It also answers what goes wrong with the body itself: a content coding other than gzip (which
 * Jetty inflates, removing the header, before the body reaches here) is 415, and a failure to read
 * the body (it stopped arriving, bad chunked framing, bad gzip) is the 4xx {@link BodyReadFailures}
 * says rather than a 500.
 */
final class BodySizeLimits implements DynamicFeature {
    /** The {@code type} of a request whose body has a content coding the server does not decode. */
    static final String UNSUPPORTED_CONTENT_ENCODING = "UNSUPPORTED_CONTENT_ENCODING";

    private final BodyLimits limits;

    BodySizeLimits(BodyLimits limits) {
        this.limits = requireNonNull(limits, "limits is null");
    }

    @Override
    public void configure(ResourceInfo resource, FeatureContext context) {
        boolean large = resource.getResourceMethod() != null
                && resource.getResourceMethod().isAnnotationPresent(LargeBody.class);
        context.register(new Filter(large ? limits.maxLoadBytes() : limits.maxRequestBytes(), limits.readTimeout()));
    }

    private static final class Filter implements ContainerRequestFilter {
        private final long limit;
        private final Duration readTimeout;

        Filter(long limit, Duration readTimeout) {
            this.limit = limit;
            this.readTimeout = readTimeout;
        }

        @Override
        public void filter(ContainerRequestContext request) {
            String coding = request.getHeaderString(HttpHeaders.CONTENT_ENCODING);
            if (coding != null && !coding.isBlank() && !"identity".equalsIgnoreCase(coding.trim())) {
                throw new ApiException(
                                415,
                                UNSUPPORTED_CONTENT_ENCODING,
                                "The request body's Content-Encoding is not supported (send gzip or none)")
                        .with("contentEncoding", coding);
            }
            String declared = request.getHeaderString(HttpHeaders.CONTENT_LENGTH);
            if (declared != null) {
                try {
                    if (Long.parseLong(declared.trim()) > limit) {
                        throw ApiException.tooLarge(limit);
                    }
                } catch (NumberFormatException e) {
                    throw ApiException.invalidRequest("Content-Length is not a number")
                            .with("contentLength", declared);
                }
            }
            request.setEntityStream(new LimitedInputStream(request.getEntityStream(), limit, readTimeout));
        }
    }

    /**
     * Counts bytes and fails with 413 once more than {@code limit} have been read; a failure to read
     * is the client's 4xx ({@link BodyReadFailures}).
     */
    static final class LimitedInputStream extends FilterInputStream {
        private final long limit;
        private final Duration readTimeout;
        private long count;

        LimitedInputStream(InputStream in, long limit, Duration readTimeout) {
            super(in);
            this.limit = limit;
            this.readTimeout = readTimeout;
        }

        @Override
        public int read() {
            int b;
            try {
                b = super.read();
            } catch (IOException e) {
                throw BodyReadFailures.translate(e, readTimeout);
            }
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) {
            int n;
            try {
                n = super.read(buffer, offset, length);
            } catch (IOException e) {
                throw BodyReadFailures.translate(e, readTimeout);
            }
            if (n > 0) {
                count(n);
            }
            return n;
        }

        @Override
        public long skip(long n) {
            long skipped;
            try {
                skipped = super.skip(n);
            } catch (IOException e) {
                throw BodyReadFailures.translate(e, readTimeout);
            }
            count(skipped);
            return skipped;
        }

        @Override
        public boolean markSupported() {
            return false;
        }

        private void count(long n) {
            count += n;
            if (count > limit) {
                throw ApiException.tooLarge(limit);
            }
        }
    }
}
