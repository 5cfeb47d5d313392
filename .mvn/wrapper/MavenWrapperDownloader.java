import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** Used by ./mvnw only on machines without wget or curl: downloads the wrapper jar with the JDK's own HTTP client. */
public final class MavenWrapperDownloader {
    public static void main(String[] args) throws Exception {
        var target = Path.of(args[1]);
        var tmp = Files.createTempFile(target.toAbsolutePath().getParent(), "wrapper", ".part");
        var client = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).build();
        var response = client.send(HttpRequest.newBuilder(URI.create(args[0])).build(), HttpResponse.BodyHandlers.ofFile(tmp));
        if (response.statusCode() != 200) {
            Files.deleteIfExists(tmp);
            throw new IllegalStateException("GET " + args[0] + " answered HTTP " + response.statusCode());
        }
        Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
    }
}
