package io.treecat.spark;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.iceberg.CatalogProperties;
import org.apache.iceberg.rest.HTTPClient;
import org.apache.iceberg.rest.ParserContext;
import org.apache.iceberg.rest.RESTClient;
import org.apache.iceberg.rest.RESTRequest;
import org.apache.iceberg.rest.RESTResponse;
import org.apache.iceberg.rest.RESTUtil;
import org.apache.iceberg.rest.auth.AuthSession;
import org.apache.iceberg.rest.responses.ErrorResponse;
import org.apache.iceberg.rest.responses.FetchScanTasksResponse;
import org.apache.iceberg.rest.responses.PlanTableScanResponse;

/**
 * Iceberg's HTTP client, as Iceberg's REST catalog builds it, except that the answers of scan planning are read
 * with {@link ScanTasksDecoder} ({@link ScanPlanningAnswers}): a whole-table plan of a large table carries hundreds
 * of thousands of file scan tasks, and Iceberg's parser spends most of the client's planning time building them.
 * Every request, header, retry, error handler and auth session is still Iceberg's.
 */
final class PlanningRestClient implements RESTClient {
    private final RESTClient http;

    PlanningRestClient(RESTClient http) {
        this.http = requireNonNull(http, "http is null");
    }

    /** What {@code RESTCatalog}'s no-argument constructor builds, wrapped. */
    static RESTClient build(Map<String, String> config) {
        return new PlanningRestClient(HTTPClient.builder(config)
                .uri(config.get(CatalogProperties.URI))
                .withHeaders(RESTUtil.configHeaders(config))
                .build());
    }

    @Override
    public RESTClient withAuthSession(AuthSession session) {
        return new PlanningRestClient(http.withAuthSession(session));
    }

    @Override
    public <T extends RESTResponse> T post(
            String path,
            RESTRequest body,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler,
            Consumer<Map<String, String>> responseHeaders,
            ParserContext parserContext) {
        if (responseType == PlanTableScanResponse.class) {
            ScanPlanningAnswers.PlanAnswer answer = http.post(
                    path,
                    body,
                    ScanPlanningAnswers.PlanAnswer.class,
                    headers,
                    errorHandler,
                    responseHeaders,
                    parserContext);
            return responseType.cast(answer.response);
        }
        if (responseType == FetchScanTasksResponse.class) {
            ScanPlanningAnswers.TasksAnswer answer = http.post(
                    path,
                    body,
                    ScanPlanningAnswers.TasksAnswer.class,
                    headers,
                    errorHandler,
                    responseHeaders,
                    parserContext);
            return responseType.cast(answer.response);
        }
        return http.post(path, body, responseType, headers, errorHandler, responseHeaders, parserContext);
    }

    @Override
    public <T extends RESTResponse> T post(
            String path,
            RESTRequest body,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler,
            Consumer<Map<String, String>> responseHeaders) {
        return http.post(path, body, responseType, headers, errorHandler, responseHeaders);
    }

    @Override
    public <T extends RESTResponse> T post(
            String path,
            RESTRequest body,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler) {
        return http.post(path, body, responseType, headers, errorHandler);
    }

    @Override
    public void head(String path, Map<String, String> headers, Consumer<ErrorResponse> errorHandler) {
        http.head(path, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T delete(
            String path, Class<T> responseType, Map<String, String> headers, Consumer<ErrorResponse> errorHandler) {
        return http.delete(path, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T delete(
            String path,
            Map<String, String> queryParams,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler) {
        return http.delete(path, queryParams, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T get(
            String path,
            Map<String, String> queryParams,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler) {
        return http.get(path, queryParams, responseType, headers, errorHandler);
    }

    @Override
    public <T extends RESTResponse> T get(
            String path,
            Map<String, String> queryParams,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler,
            ParserContext parserContext) {
        return http.get(path, queryParams, responseType, headers, errorHandler, parserContext);
    }

    @Override
    public <T extends RESTResponse> T get(
            String path,
            Map<String, String> queryParams,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler,
            Consumer<Map<String, String>> responseHeaders) {
        return http.get(path, queryParams, responseType, headers, errorHandler, responseHeaders);
    }

    @Override
    public <T extends RESTResponse> T postForm(
            String path,
            Map<String, String> formData,
            Class<T> responseType,
            Map<String, String> headers,
            Consumer<ErrorResponse> errorHandler) {
        return http.postForm(path, formData, responseType, headers, errorHandler);
    }

    @Override
    public void close() throws IOException {
        http.close();
    }
}
