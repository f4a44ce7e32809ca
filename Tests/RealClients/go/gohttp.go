// Run-contract wrapper (docs/running-clients.md) for Go's standard library HTTP client, net/http
// with net/http/cookiejar (Debian's golang-go, Go 1.19), on the http-basic and proxy flows. Go's
// standard library has Basic only (Request.SetBasicAuth; no Digest, NTLM or Negotiate), and
// http.Client never answers a 401 or a 407 by itself, so an application chooses how Basic goes
// out; GO_AUTH says which of the two usual ways this run is (gohttp-*.yaml):
//
//	GO_AUTH=upfront    req.SetBasicAuth(user, password) on the request before it is sent, the
//	                   way most Go code calls an API that wants Basic (the credentials go with
//	                   the first request, unasked);
//	GO_AUTH=challenge  the request goes without credentials; when the answer is 401 and its
//	                   WWW-Authenticate offers Basic, the application sends the same request
//	                   again, once, with req.SetBasicAuth; a second 401 means the server refused
//	                   the password, and the application reports it.
//
// Everything else is the library's: http.Client follows redirects (up to 10) and decides which
// headers go along (it drops Authorization and Cookie on a redirect to another host), the
// cookiejar keeps cookies, the Transport keeps connections alive and reads the body.
//
// Adapted, nothing else:
//   - the credentials are the environment's strings: Go strings are UTF-8 text, as os.Getenv
//     gives them; SetBasicAuth base64-encodes "user:password" as they are;
//   - proxy: http.Transport.Proxy = http.ProxyURL(u), u the proxy URL with the proxy's user and
//     password as its userinfo (url.UserPassword), the documented way to give net/http an
//     authenticating proxy; the Transport sends them as Basic Proxy-Authorization on every plain
//     http request and never answers a 407. (http.ProxyFromEnvironment would bypass the proxy for
//     the mocks' 127.0.0.1: Go never proxies requests to localhost from the environment.)
//   - the timeout is SAMLH_REQUEST_TIMEOUT, as http.Client.Timeout (the whole exchange of one
//     Do, redirects included; Go's default is no timeout);
//   - https: the test CA (SAMLH_CA_FILE) is the only root, through tls.Config.RootCAs on a clone
//     of http.DefaultTransport, as an application that is given a CA does; the certificate and
//     host-name checks stay crypto/tls's own;
//   - the result: the body on 200 (io.ReadAll, whose error on a cut body is the library's), else
//     the status, URL and the start of the body, or the library's error.
//
// Built by scripts/setup-real-clients-system.sh into .build-real-clients/go/gohttp (standard
// library only; GOCACHE and GOPATH in .build-real-clients/go, offline).
package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

type result struct {
	Outcome  string            `json:"outcome"`
	Resource string            `json:"resource"`
	Error    string            `json:"error"`
	Details  map[string]string `json:"details"`
}

func main() {
	mode := os.Getenv("GO_AUTH")
	details := map[string]string{"client": "net/http", "go": runtime.Version(), "auth": mode}
	resource, err := fetch(mode, details)
	out := result{Outcome: "success", Resource: resource, Details: details}
	if err != nil {
		out = result{Outcome: "failure", Error: err.Error(), Details: details}
	}
	data, _ := json.Marshal(out)
	if werr := os.WriteFile(os.Getenv("SAMLH_RESULT_FILE"), data, 0o600); werr != nil {
		fmt.Fprintln(os.Stderr, "cannot write the result:", werr)
		os.Exit(1)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func fetch(mode string, details map[string]string) (string, error) {
	seconds, err := strconv.ParseFloat(envOr("SAMLH_REQUEST_TIMEOUT", "10"), 64)
	if err != nil {
		return "", err
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	if caFile := os.Getenv("SAMLH_CA_FILE"); caFile != "" {
		pem, err := os.ReadFile(caFile)
		if err != nil {
			return "", err
		}
		roots := x509.NewCertPool()
		if !roots.AppendCertsFromPEM(pem) {
			return "", fmt.Errorf("no certificate in %s", caFile)
		}
		transport.TLSClientConfig = &tls.Config{RootCAs: roots}
	}
	if os.Getenv("SAMLH_FLOW") == "proxy" {
		proxy, err := url.Parse(os.Getenv("SAMLH_PROXY_URL"))
		if err != nil {
			return "", err
		}
		proxy.User = url.UserPassword(os.Getenv("SAMLH_PROXY_USERNAME"), os.Getenv("SAMLH_PROXY_PASSWORD"))
		transport.Proxy = http.ProxyURL(proxy)
	}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return "", err
	}
	client := &http.Client{Transport: transport, Jar: jar, Timeout: time.Duration(seconds * float64(time.Second))}
	user, password := os.Getenv("SAMLH_USERNAME"), os.Getenv("SAMLH_PASSWORD")

	request, err := http.NewRequest(http.MethodGet, os.Getenv("SAMLH_START_URL"), nil)
	if err != nil {
		return "", err
	}
	if mode == "upfront" {
		request.SetBasicAuth(user, password)
	}
	response, err := client.Do(request)
	if err != nil {
		return "", err
	}
	if mode == "challenge" && response.StatusCode == http.StatusUnauthorized && offersBasic(response.Header.Values("WWW-Authenticate")) {
		io.Copy(io.Discard, response.Body)
		response.Body.Close()
		details["answered"] = "401 from " + response.Request.URL.String()
		request.SetBasicAuth(user, password)
		if response, err = client.Do(request); err != nil {
			return "", err
		}
	}
	defer response.Body.Close()
	details["status"] = strconv.Itoa(response.StatusCode)
	details["url"] = response.Request.URL.String()
	body, err := io.ReadAll(response.Body)
	if err != nil {
		return "", fmt.Errorf("reading the body of %s: %w", response.Request.URL, err)
	}
	if response.StatusCode != http.StatusOK {
		text := string(body)
		if len(text) > 300 {
			text = text[:300]
		}
		return "", fmt.Errorf("HTTP %s from %s: %s", response.Status, response.Request.URL, text)
	}
	return string(body), nil
}

// offersBasic: one of the WWW-Authenticate fields names the Basic scheme.
func offersBasic(fields []string) bool {
	for _, field := range fields {
		for _, part := range strings.Split(field, ",") {
			words := strings.Fields(part)
			if len(words) > 0 && strings.EqualFold(words[0], "Basic") {
				return true
			}
		}
	}
	return false
}

func envOr(name, fallback string) string {
	if value := os.Getenv(name); value != "" {
		return value
	}
	return fallback
}
