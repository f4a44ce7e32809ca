# Run-contract wrapper (docs/running-clients.md) for Ruby's Mechanize 2.8.5 (Debian's
# ruby-mechanize, Ruby 3.1), a scripted browser with no SAML knowledge, on the web-sso,
# web-sso-idp-initiated, adfs-passive, proxy, http-basic, http-digest and http-ntlm flows.
# Mechanize answers 401 itself (Basic; Digest through net-http-digest_auth; NTLM through
# rubyntlm) with what Mechanize#add_auth was given, and keeps its connections open through
# net-http-persistent.
#
# A user's clicks, through Mechanize's public API, as mechanize_browser.py does for Python's
# mechanize: get the start URL, then on each page fill and submit its first form (the login
# form: the text field gets the user name and the password field the password; the second-factor
# form; the consent page, Accept or, when SAMLH_CONSENT=decline, Reject; AD FS's relying-party
# choice; the SAML auto-post form, which a browser without JavaScript submits:
# page.forms.first.submit), until a page has no form. SAMLH_SECOND_LOGIN=1 gets the start URL a
# second time with the same agent. Success is what a script checks: the last page is a 200
# without a form, back on the application (the SP for IdP-started flows, else the start URL's
# site; on the HTTP-auth flows, a plain GET, wherever Mechanize's redirects end).
#
# Adapted, nothing else:
# - HTTP authentication the way a Mechanize script is given it: agent.add_auth(origin, user,
#   password) for the start URL's and the IdP's origins (Mechanize keys credentials by origin;
#   realm nil: any realm), with SAMLH_DOMAIN as add_auth's NTLM domain (EXAMPLE; none with a
#   UPN; Mechanize uses it for NTLM only). Mechanize then decides when to send them (after a 401) and when to stop
#   (it raises Mechanize::UnauthorizedError when a realm it answered challenges again).
# - the credentials are the environment's strings, which Ruby tags with the locale's encoding
#   (LANG=C.UTF-8 from the runner): UTF-8 character strings, as any Ruby program reads them.
# - proxy: Mechanize#set_proxy(host, port, user, password), its documented proxy setting. The
#   user and password are CGI.escape'd first: set_proxy stores them in a URI's userinfo (which
#   refuses ':', '@', spaces and non-ASCII raw) and net-http-persistent CGI.unescape's them back
#   (Net::HTTP::Persistent#proxy=; its own proxy_from_env escapes them the same way). Net::HTTP
#   then sends them as Basic Proxy-Authorization with every request.
# - open and read timeouts are SAMLH_REQUEST_TIMEOUT (Mechanize's default is none); https trusts
#   SAMLH_CA_FILE (agent.ca_file) when the scenario gives one, with Mechanize's own peer and
#   host-name verification; robots.txt and meta refresh stay off (Mechanize's defaults).
# - a 4xx/5xx page is an answer too: Mechanize raises Mechanize::ResponseCodeError with the page;
#   the wrapper reports that page. The final page is the resource; on a failure the error is its
#   status, URL and text, or Mechanize's exception.
require "cgi"
require "json"
require "mechanize"
require "uri"

MAX_PAGES = 14
ENVIRONMENT = ENV.to_h

def env(name) = ENVIRONMENT.fetch(name, "")

def origin(url)
  uri = URI(url)
  "#{uri.scheme}://#{uri.host}:#{uri.port}/"
end

def report(ok, resource, error, details)
  result = { outcome: ok ? "success" : "failure", resource: ok ? resource : "",
             error: ok ? "" : error, details: details.transform_values(&:to_s) }
  File.write(env("SAMLH_RESULT_FILE"), JSON.generate(result))
  warn error unless ok
  exit(ok ? 0 : 1)
end

def agent
  agent = Mechanize.new
  timeout = Float(ENVIRONMENT.fetch("SAMLH_REQUEST_TIMEOUT", "10"))
  agent.open_timeout = timeout
  agent.read_timeout = timeout
  agent.ca_file = env("SAMLH_CA_FILE") unless env("SAMLH_CA_FILE").empty?
  domain = env("SAMLH_DOMAIN").empty? ? nil : env("SAMLH_DOMAIN") # NTLM only; Basic and Digest ignore it
  [env("SAMLH_START_URL"), env("SAMLH_IDP_ENTITY_ID")].reject(&:empty?).map { |url| origin(url) }.uniq.each do |site|
    agent.add_auth(site, env("SAMLH_USERNAME"), env("SAMLH_PASSWORD"), nil, domain)
  end
  unless env("SAMLH_PROXY_URL").empty?
    proxy = URI(env("SAMLH_PROXY_URL"))
    agent.set_proxy(proxy.host, proxy.port, CGI.escape(env("SAMLH_PROXY_USERNAME")), CGI.escape(env("SAMLH_PROXY_PASSWORD")))
  end
  agent
end

# A page, also when the server answered 4xx/5xx (Mechanize raises with the page; its message,
# e.g. "Basic authentication failed", goes into the error).
def answer
  yield
rescue Mechanize::ResponseCodeError => e
  $mechanize_said = "#{e.class}: #{e.message}"
  e.page
end

def forms_of(page)
  page.respond_to?(:forms) && page.code == "200" ? page.forms : []
end

def login(agent)
  page = answer { agent.get(env("SAMLH_START_URL")) }
  tried_password = false
  MAX_PAGES.times do
    form = forms_of(page).first
    break unless form
    names = form.fields.map(&:name) + form.buttons.map(&:name) + form.radiobuttons.map(&:name)
    passwords = form.fields.select { |f| f.is_a?(Mechanize::Form::Field) && f.type == "password" }
    texts = form.fields.select { |f| %w[text email].include?(f.type) }
    if names.include?("SAMLResponse")
      page = answer { form.submit }
    elsif !passwords.empty? && !texts.empty?
      break if tried_password # the login form came back: the password was refused
      tried_password = true
      texts.first.value = env("SAMLH_USERNAME")
      passwords.first.value = env("SAMLH_PASSWORD")
      page = answer { form.click_button }
    elsif names.include?("j_tokenNumber")
      form["j_tokenNumber"] = env("SAMLH_SECOND_FACTOR_CODE")
      page = answer { form.click_button(form.button_with(name: "_eventId_proceed")) }
    elsif names.include?("_eventId_AttributeReleaseRejected") || names.include?("_shib_idp_consentIds")
      button = env("SAMLH_CONSENT") == "decline" ? "_eventId_AttributeReleaseRejected" : "_eventId_proceed"
      page = answer { form.click_button(form.button_with(name: button)) }
    elsif names.include?("RelyingParty") && !env("SAMLH_ADFS_RELYING_PARTY").empty?
      form.radiobutton_with(name: "SignInOtherSite")&.check
      choice = form.field_with(name: "RelyingParty")
      choice.node.remove_attribute("disabled") # what the radio's onclick script does
      choice.value = env("SAMLH_ADFS_RELYING_PARTY")
      page = answer { form.click_button }
    else
      break
    end
  end
  [page, !forms_of(page).empty?]
end

# Where a browser login must land: the SP for IdP-started flows, else the start URL's site. The
# HTTP-auth flows (http-basic, http-digest, http-ntlm) are a plain GET: the page Mechanize ends
# on, after its redirects, is the answer wherever it is.
def application_origin
  return nil if env("SAMLH_FLOW").start_with?("http-")
  started_at_idp = %w[web-sso-idp-initiated adfs-passive].include?(env("SAMLH_FLOW"))
  origin(started_at_idp && !env("SAMLH_SP_URL").empty? ? env("SAMLH_SP_URL") : env("SAMLH_START_URL"))
end

begin
  browser = agent
  page = nil
  form_left = false
  (env("SAMLH_SECOND_LOGIN") == "1" ? 2 : 1).times do
    page, form_left = login(browser)
    break if page.code != "200" || form_left
  end
  body = page.body.to_s.dup.force_encoding(Encoding::UTF_8).scrub
  ok = page.code == "200" && !form_left && [nil, origin(page.uri.to_s)].include?(application_origin)
  report(ok, body, "HTTP #{page.code} at #{page.uri}#{$mechanize_said ? " (#{$mechanize_said})" : ""}: #{body[0, 3000]}",
         { client: "Mechanize", version: Mechanize::VERSION, status: page.code, url: page.uri })
rescue StandardError => e # a network error, a refused certificate, a timeout, an authentication Mechanize gave up
  message = "#{e.class}: #{e.message}"
  if e.respond_to?(:page) && e.page
    message += " (HTTP #{e.page.code} at #{e.page.uri})"
  end
  report(false, "", message, { client: "Mechanize", version: Mechanize::VERSION })
end
