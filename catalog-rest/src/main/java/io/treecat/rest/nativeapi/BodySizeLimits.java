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

/**
 * Puts a size limit on each resource method's request body: a declared {@code Content-Length} over
 * the limit is refused before anything is read, and a chunked body is counted as it streams and
 * refused the moment it passes the limit. Both end in a 413 from {@link ApiErrors}.
 */
final class BodySizeLimits implements DynamicFeature {
    private final BodyLimits limits;

    BodySizeLimits(BodyLimits limits) {
        this.limits = requireNonNull(limits, "limits is null");
    }

    @Override
    public void configure(ResourceInfo resource, FeatureContext context) {
        boolean large = resource.getResourceMethod() != null
                && resource.getResourceMethod().isAnnotationPresent(LargeBody.class);
        context.register(new Filter(large ? limits.maxLoadBytes() : limits.maxRequestBytes()));
    }

    private static final class Filter implements ContainerRequestFilter {
        private final long limit;

        Filter(long limit) {
            this.limit = limit;
        }

        @Override
        public void filter(ContainerRequestContext request) {
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
            request.setEntityStream(new LimitedInputStream(request.getEntityStream(), limit));
        }
    }

    /** Counts bytes and fails with 413 once more than {@code limit} have been read. */
    static final class LimitedInputStream extends FilterInputStream {
        private final long limit;
        private long count;

        LimitedInputStream(InputStream in, long limit) {
            super(in);
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        @Override
        public long skip(long n) throws IOException {
            long skipped = super.skip(n);
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
