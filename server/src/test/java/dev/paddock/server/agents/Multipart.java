package dev.paddock.server.agents;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import tools.jackson.databind.JsonNode;

/** A client-side multipart/form-data upload of named files, for the inputs the SDKs would not send. */
final class Multipart {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String BOUNDARY = "paddock-test-boundary-7f3a";

    private Multipart() {}

    /** Posts {@code files} (path to content) as parts named {@code files}. */
    static Rest.Answer post(Rest api, String path, Map<String, byte[]> files) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        try {
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                body.write(("--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"files\"; filename=\"" + f.getKey()
                        + "\"\r\nContent-Type: application/octet-stream\r\n\r\n").getBytes(StandardCharsets.UTF_8));
                body.write(f.getValue());
                body.write("\r\n".getBytes(StandardCharsets.UTF_8));
            }
            body.write(("--" + BOUNDARY + "--\r\n").getBytes(StandardCharsets.UTF_8));
            HttpRequest request = HttpRequest.newBuilder(URI.create(api.baseUrl() + path)).header("x-api-key", api.key())
                    .header("Content-Type", "multipart/form-data; boundary=" + BOUNDARY)
                    .POST(HttpRequest.BodyPublishers.ofByteArray(body.toByteArray())).build();
            HttpResponse<byte[]> r = HTTP.send(request, HttpResponse.BodyHandlers.ofByteArray());
            JsonNode json = r.body().length == 0 ? null : Rest.JSON.readTree(r.body());
            return new Rest.Answer(r.statusCode(), json);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
