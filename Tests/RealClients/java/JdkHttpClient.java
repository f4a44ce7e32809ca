// Run-contract wrapper (docs/running-clients.md) for OpenJDK 17's java.net.HttpURLConnection
// with a java.net.Authenticator (Debian's default-jdk-headless), on the http-basic,
// http-digest, http-ntlm and proxy flows. It does what an application does: one Authenticator
// that answers with the user's credentials when the origin asks (RequestorType.SERVER) and with
// the proxy's when the proxy asks (RequestorType.PROXY); a GET; the body on 200.
//
// NTLM (http-ntlm; a proxy answering 407 Proxy-Authenticate: NTLM): the JDK's own pure-Java
// NTLM (sun.net.www.protocol.http.ntlm.NTLMAuthentication over com.sun.security.ntlm.Client,
// on Linux too; no transparent/SSO logon off Windows). The JDK takes the NT domain from the user
// name (EXAMPLE\alice), else from -Dhttp.auth.ntlm.domain (JDK networking properties), so when
// getRequestingScheme() is NTLM the Authenticator answers with the user name prefixed by
// SAMLH_DOMAIN and a backslash (EXAMPLE\alice, EXAMPLE\proxyuser) — the notation the JDK
// documents for an Authenticator that serves NTLM — and the bare user name for every other
// scheme (Basic, Digest); a UPN (SAMLH_DOMAIN empty) goes as given. No NTLM property is set:
// the JDK's default ntlm.version (LMv2/NTLMv2), its choice among Negotiate and NTLM (Negotiate
// only when a Kerberos login works), and its retries stay its own.
//
// Kerberos (scenarios with a realm: KRB5CCNAME and KRB5_CONFIG set by the runner's kinit): the
// JDK's Negotiate uses its own pure-Java Kerberos (JGSS), which reads a native ticket cache only
// when javax.security.auth.useSubjectCredsOnly is false (JDK "Http Authentication" guide); the
// wrapper then sets that and java.security.krb5.conf to KRB5_CONFIG, as a user on a
// domain-joined Linux desktop configures Java. The ticket cache is found through KRB5CCNAME.
//
// Adapted, nothing else:
// - proxy: a java.net.Proxy passed to URL.openConnection(Proxy), as an application that is
//   given a proxy does. With JDK_PROXY=properties (java-proxy-properties.yaml) instead
//   http.proxyHost/http.proxyPort, the system-property way, plus http.nonProxyHosts set to the
//   empty string: the default ProxySelector (sun.net.spi.DefaultProxySelector) bypasses the proxy
//   for http.nonProxyHosts, whose default is "localhost|127.*|[::1]|0.0.0.0|[::0]", and every
//   mock is on 127.0.0.1, while an application's origin on a LAN is not in that list; an empty
//   value is the only one that drops those defaults (a non-empty one gets them appended), so the
//   run takes the proxy as a LAN application does (issue 17 #10, issue 35).
// - the Authenticator answers like an application's, once per protection space: the JDK calls
//   getPasswordAuthentication again after every refusal (it caches the answer per realm and asks
//   anew when the server refuses it) and stops retrying only when the Authenticator returns null
//   (java.net.Authenticator: "null if the data can't be obtained"), as an application does once
//   its user was refused — a login dialog that gives up, or a program that holds one password.
//   So the wrapper counts the calls per requestor type, requesting host and port, realm
//   (getRequestingPrompt), scheme and requesting URL: the first call gets the credentials; a
//   second call for the same URL and protection space means the server refused them there, and
//   it gets null. (An Authenticator that always answers makes the JDK re-send the refused
//   password until its redirect limit, 20: that would be the wrapper's loop, not the library's.)
//   A new realm, host, scheme or URL (the JDK asks again after a redirect within the realm) is
//   answered.
// - the Authenticator is set on the connection (HttpURLConnection.setAuthenticator, JDK 9+)
//   rather than Authenticator.setDefault; the JDK's retry and caching logic is the same.
// - connect and read timeouts are SAMLH_REQUEST_TIMEOUT (the JDK default is to wait forever).
// - https: the test CA (SAMLH_CA_FILE) is the trust anchor, through an SSLContext whose
//   TrustManagerFactory holds it, as an application that is given a CA does (docs/tls.md);
//   certificate and host-name checks stay the JDK's own (PKIX, HttpsURLConnection's verifier).
// - the JDK's own defaults stay: redirects followed (same protocol), Basic allowed to
//   plain-http proxies (jdk.http.auth.proxying.disabledSchemes is empty; only HTTPS tunnels
//   disable Basic, jdk.http.auth.tunneling.disabledSchemes=Basic), its charset for Basic and
//   Digest; how often it re-asks the Authenticator is its own, what the Authenticator answers is
//   the application's (above).
//
// Compiled by scripts/setup-real-clients-system.sh into .build-real-clients/java; run as
// `java -cp .build-real-clients/java JdkHttpClient` (Tests/RealClients/java.yaml).

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Writer;
import java.net.Authenticator;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.PasswordAuthentication;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.HttpsURLConnection;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

public final class JdkHttpClient {
    private JdkHttpClient() {}

    public static void main(String[] args) throws IOException {
        Map<String, String> env = System.getenv();
        if (env.containsKey("KRB5CCNAME")) {
            System.setProperty("javax.security.auth.useSubjectCredsOnly", "false");
            if (env.containsKey("KRB5_CONFIG")) System.setProperty("java.security.krb5.conf", env.get("KRB5_CONFIG"));
        }
        Path resultFile = Path.of(env.get("SAMLH_RESULT_FILE"));
        AtomicInteger asked = new AtomicInteger();
        Set<String> schemes = Collections.synchronizedSet(new LinkedHashSet<>());
        Map<String, Integer> answered = new java.util.concurrent.ConcurrentHashMap<>();
        Set<String> refused = Collections.synchronizedSet(new LinkedHashSet<>());
        String outcome = "failure";
        String resource = "";
        String error = "";
        int status = -1;
        HttpURLConnection connection = null;
        try {
            int timeout = (int) Math.ceil(Double.parseDouble(env.getOrDefault("SAMLH_REQUEST_TIMEOUT", "10")) * 1000);
            Authenticator authenticator = new Authenticator() {
                @Override
                protected PasswordAuthentication getPasswordAuthentication() {
                    asked.incrementAndGet();
                    schemes.add(getRequestorType() + ":" + getRequestingScheme());
                    String space = getRequestorType() + " " + getRequestingHost() + ":" + getRequestingPort()
                            + " " + getRequestingScheme() + " " + getRequestingPrompt() + " " + getRequestingURL();
                    if (answered.merge(space, 1, Integer::sum) > 1) {
                        refused.add(space);
                        return null; // already refused for this protection space: give up, as an application does
                    }
                    boolean proxy = getRequestorType() == RequestorType.PROXY;
                    String user = env.get(proxy ? "SAMLH_PROXY_USERNAME" : "SAMLH_USERNAME");
                    String password = env.get(proxy ? "SAMLH_PROXY_PASSWORD" : "SAMLH_PASSWORD");
                    String domain = env.getOrDefault("SAMLH_DOMAIN", "");
                    if ("NTLM".equalsIgnoreCase(getRequestingScheme()) && !domain.isEmpty() && user.indexOf('\\') < 0) {
                        user = domain + "\\" + user;
                    }
                    return new PasswordAuthentication(user, password.toCharArray());
                }
            };
            String caFile = env.get("SAMLH_CA_FILE");
            if (caFile != null && !caFile.isEmpty()) {
                KeyStore anchors = KeyStore.getInstance(KeyStore.getDefaultType());
                anchors.load(null, null);
                try (InputStream pem = Files.newInputStream(Path.of(caFile))) {
                    anchors.setCertificateEntry("samlharness-test-ca", CertificateFactory.getInstance("X.509").generateCertificate(pem));
                }
                TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                trust.init(anchors);
                SSLContext context = SSLContext.getInstance("TLS");
                context.init(null, trust.getTrustManagers(), null);
                HttpsURLConnection.setDefaultSSLSocketFactory(context.getSocketFactory());
            }
            var url = URI.create(env.get("SAMLH_START_URL")).toURL();
            if ("proxy".equals(env.get("SAMLH_FLOW")) && "properties".equals(env.get("JDK_PROXY"))) {
                // What an application configured by -Dhttp.proxyHost/-Dhttp.proxyPort gets: the
                // default ProxySelector (java.yaml does not use this; java-proxy-properties.yaml does).
                URI proxyURI = URI.create(env.get("SAMLH_PROXY_URL"));
                System.setProperty("http.proxyHost", proxyURI.getHost());
                System.setProperty("http.proxyPort", Integer.toString(proxyURI.getPort()));
                // The mocks are on 127.0.0.1, which the default http.nonProxyHosts bypasses; an
                // application's origin on a LAN is not in that list. Empty is the one value that
                // drops the loopback defaults (any other value gets them appended,
                // sun.net.spi.DefaultProxySelector), so the proxy is used as for a LAN origin.
                System.setProperty("http.nonProxyHosts", "");
                connection = (HttpURLConnection) url.openConnection();
            } else if ("proxy".equals(env.get("SAMLH_FLOW"))) {
                URI proxyURI = URI.create(env.get("SAMLH_PROXY_URL"));
                Proxy proxy = new Proxy(Proxy.Type.HTTP, new InetSocketAddress(proxyURI.getHost(), proxyURI.getPort()));
                connection = (HttpURLConnection) url.openConnection(proxy);
            } else {
                connection = (HttpURLConnection) url.openConnection();
            }
            connection.setAuthenticator(authenticator);
            connection.setConnectTimeout(timeout);
            connection.setReadTimeout(timeout);
            status = connection.getResponseCode();
            if (status == HttpURLConnection.HTTP_OK) {
                resource = read(connection.getInputStream());
                outcome = "success";
            } else {
                InputStream errorStream = connection.getErrorStream();
                String body = errorStream == null ? "" : read(errorStream);
                error = "HTTP " + status + " " + connection.getResponseMessage() + " from " + connection.getURL()
                        + (body.isEmpty() ? "" : ": " + body.substring(0, Math.min(200, body.length())));
            }
        } catch (IOException | RuntimeException | GeneralSecurityException failure) {
            error = failure.getClass().getName() + ": " + failure.getMessage();
        }
        boolean usedProxy = connection != null && connection.usingProxy();
        try (Writer out = Files.newBufferedWriter(resultFile, StandardCharsets.UTF_8)) {
            out.write("{\"outcome\":" + json(outcome) + ",\"resource\":" + json(resource) + ",\"error\":" + json(error)
                    + ",\"details\":{\"client\":\"java.net.HttpURLConnection\",\"java\":"
                    + json(System.getProperty("java.runtime.version")) + ",\"used_proxy\":" + json(Boolean.toString(usedProxy)) + ",\"status\":" + json(Integer.toString(status))
                    + ",\"authenticator_calls\":" + json(Integer.toString(asked.get()))
                    + ",\"authenticator_schemes\":" + json(String.join(" ", schemes))
                    + ",\"authenticator_gave_up\":" + json(String.join("; ", refused)) + "}}");
        }
        if (!error.isEmpty()) System.err.println(error);
        System.exit("success".equals(outcome) ? 0 : 1);
    }

    private static String read(InputStream stream) throws IOException {
        try (stream; ByteArrayOutputStream buffer = new ByteArrayOutputStream()) {
            stream.transferTo(buffer);
            return buffer.toString(StandardCharsets.UTF_8);
        }
    }

    /** A JSON string: quote, backslash and control characters escaped. */
    private static String json(String text) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : text.toCharArray()) {
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                default -> {
                    if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
            }
        }
        return out.append('"').toString();
    }
}
