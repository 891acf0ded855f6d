package io.treecat.grpc;

import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * Answers a request message that is not valid protobuf of its type with {@code INVALID_ARGUMENT}.
 *
 * <p>grpc-java parses a request before any interceptor sees it, and a parse failure (the protobuf
 * marshaller's {@code INTERNAL} "Invalid protobuf byte sequence") reaches the client as {@code UNKNOWN}
 * "Application error processing RPC": a server failure, for what is the client's mistake (found by
 * LiveProtocolFuzzIT). Here each method's request marshaller hands such a message on as {@code null},
 * and the call's listener closes the call with the client's error instead of passing it to the service.
 * The service descriptor keeps its schema, so reflection (grpcurl) still describes the service.
 */
final class MalformedRequests {
    static final String MESSAGE = "The request is not a valid protobuf message of its type";

    private MalformedRequests() {}

    static ServerServiceDefinition refused(ServerServiceDefinition service) {
        ServiceDescriptor original = service.getServiceDescriptor();
        ServiceDescriptor.Builder descriptor =
                ServiceDescriptor.newBuilder(original.getName()).setSchemaDescriptor(original.getSchemaDescriptor());
        List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
        for (ServerMethodDefinition<?, ?> method : service.getMethods()) {
            ServerMethodDefinition<?, ?> wrapped = wrap(method);
            descriptor.addMethod(wrapped.getMethodDescriptor());
            methods.add(wrapped);
        }
        ServerServiceDefinition.Builder builder = ServerServiceDefinition.builder(descriptor.build());
        methods.forEach(builder::addMethod);
        return builder.build();
    }

    private static <RequestT, ResponseT> ServerMethodDefinition<RequestT, ResponseT> wrap(
            ServerMethodDefinition<RequestT, ResponseT> method) {
        MethodDescriptor<RequestT, ResponseT> original = method.getMethodDescriptor();
        MethodDescriptor<RequestT, ResponseT> lenient = original.toBuilder()
                .setRequestMarshaller(new NullOnMalformed<>(original.getRequestMarshaller()))
                .build();
        ServerCallHandler<RequestT, ResponseT> handler = method.getServerCallHandler();
        return ServerMethodDefinition.create(
                lenient, (call, headers) -> refusing(call, handler.startCall(call, headers)));
    }

    private static <RequestT, ResponseT> ServerCall.Listener<RequestT> refusing(
            ServerCall<RequestT, ResponseT> call, ServerCall.Listener<RequestT> delegate) {
        return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(delegate) {
            /** Once refused, the service hears nothing more of the call but its end. */
            private boolean refused;

            @Override
            public void onMessage(RequestT message) {
                if (refused) {
                    return;
                }
                if (message == null) {
                    refused = true;
                    call.close(Status.INVALID_ARGUMENT.withDescription(MESSAGE), new Metadata());
                    return;
                }
                super.onMessage(message);
            }

            @Override
            public void onHalfClose() {
                if (!refused) {
                    super.onHalfClose();
                }
            }

            @Override
            public void onReady() {
                if (!refused) {
                    super.onReady();
                }
            }
        };
    }

    /** The request marshaller, but a message it cannot parse is {@code null}, not an exception. */
    private static final class NullOnMalformed<T> implements MethodDescriptor.Marshaller<T> {
        private final MethodDescriptor.Marshaller<T> delegate;

        NullOnMalformed(MethodDescriptor.Marshaller<T> delegate) {
            this.delegate = delegate;
        }

        @Override
        public InputStream stream(T value) {
            return delegate.stream(value);
        }

        @Override
        public T parse(InputStream stream) {
            try {
                return delegate.parse(stream);
            } catch (StatusRuntimeException e) {
                if (e.getStatus().getCode() == Status.Code.INTERNAL) {
                    return null;
                }
                throw e;
            }
        }
    }
}
