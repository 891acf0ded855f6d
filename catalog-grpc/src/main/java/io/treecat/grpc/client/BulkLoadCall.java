package io.treecat.grpc.client;

import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.treecat.grpc.v1.BulkLoadChunk;
import io.treecat.grpc.v1.BulkLoadResponse;

/**
 * The client side of one bulk load: sends a message only when the transport is ready, so reading
 * a large file never runs ahead of the server's commits, and stops sending as soon as the server
 * has answered (a failure ends the call early).
 */
final class BulkLoadCall implements ClientResponseObserver<BulkLoadChunk, BulkLoadResponse> {
    private final Object lock = new Object();
    private ClientCallStreamObserver<BulkLoadChunk> requests;
    private BulkLoadResponse response;
    private Throwable failure;
    private boolean done;

    @Override
    public void beforeStart(ClientCallStreamObserver<BulkLoadChunk> stream) {
        this.requests = stream;
        stream.setOnReadyHandler(this::wake);
    }

    private void wake() {
        synchronized (lock) {
            lock.notifyAll();
        }
    }

    /** Sends one message once the transport can take it; false if the call already ended. */
    boolean send(BulkLoadChunk chunk) throws InterruptedException {
        synchronized (lock) {
            while (!done && !requests.isReady()) {
                lock.wait(100);
            }
            if (done) {
                return false;
            }
        }
        requests.onNext(chunk);
        return true;
    }

    void finish() {
        requests.onCompleted();
    }

    void cancel(String why, Throwable cause) {
        requests.cancel(why, cause);
    }

    BulkLoadResponse await() throws InterruptedException {
        synchronized (lock) {
            while (!done) {
                lock.wait();
            }
        }
        if (failure instanceof StatusRuntimeException e) {
            throw TreeCatClientException.from(e);
        }
        if (failure != null) {
            throw TreeCatClientException.from(
                    io.grpc.Status.fromThrowable(failure).asRuntimeException());
        }
        return response;
    }

    @Override
    public void onNext(BulkLoadResponse value) {
        synchronized (lock) {
            response = value;
        }
    }

    @Override
    public void onError(Throwable t) {
        synchronized (lock) {
            failure = t;
            done = true;
            lock.notifyAll();
        }
    }

    @Override
    public void onCompleted() {
        synchronized (lock) {
            done = true;
            lock.notifyAll();
        }
    }
}
