#!/usr/bin/perl
# Run-contract wrapper (docs/running-clients.md) for Perl's LWP::UserAgent (Debian's
# libwww-perl 6.68) on the http-basic, http-digest and proxy flows. LWP answers a 401 itself
# (LWP::Authen::Basic, LWP::Authen::Digest) with the credentials its get_basic_credentials()
# returns, stores them with credentials(host:port, realm, user, pass) and re-sends them to that
# protection space; this wrapper is an application that does a GET and reads the body.
#
# Adapted, nothing else:
# - the realm is not known in advance (the contract gives none), so the user agent overrides
#   get_basic_credentials() — the hook LWP::UserAgent documents for it, and what LWP's own
#   lwp-request does for -C — and answers with the user's credentials for the start URL's
#   host:port only, any realm; LWP then keeps them itself with credentials();
# - proxy: stock LWP::UserAgent never answers a 407 (get_basic_credentials returns nothing for
#   a proxy), and LWP's documented way is credentials in the proxy URL's userinfo
#   (`http_proxy=http://user:pass@host:port`, LWP::Protocol::http), which it sends as Basic
#   Proxy-Authorization on every request, up front. That is what this wrapper does, with
#   $ua->proxy (the userinfo percent-encoded: LWP decodes it);
# - the timeout is SAMLH_REQUEST_TIMEOUT (LWP's default is 180 s);
# - the credentials: LWP's API takes Perl character strings (LWP::Authen::Basic runs
#   Encode::encode("UTF-8", "user:pass") itself when the challenge says charset="UTF-8", which
#   is right only for characters), so the wrapper decodes the environment's UTF-8
#   (Encode::decode), as perlunifaq tells a program to decode its input. (Undecoded bytes would
#   be encoded twice: the wrapper's mistake, not LWP's, so no entry runs that way, issue 35.)
use strict;
use warnings;

package AppUserAgent;
use parent -norequire, 'LWP::UserAgent';

sub get_basic_credentials {
    my ($self, $realm, $uri, $proxy) = @_;
    return if $proxy;
    return unless lc($uri->host_port) eq lc($self->{app_netloc});
    return @{ $self->{app_credentials} };
}

package main;
use LWP::UserAgent;
use URI;
use URI::Escape qw(uri_escape);
use JSON::PP;
use Encode ();

my $start = URI->new($ENV{SAMLH_START_URL});
my $ua = AppUserAgent->new(timeout => $ENV{SAMLH_REQUEST_TIMEOUT} || 10, env_proxy => 0);
$ua->{app_netloc} = $start->host_port;
$ua->{app_credentials} = [map { Encode::decode('UTF-8', $_) } $ENV{SAMLH_USERNAME}, $ENV{SAMLH_PASSWORD}];
if (($ENV{SAMLH_FLOW} // '') eq 'proxy') {
    my $proxy = URI->new($ENV{SAMLH_PROXY_URL});
    $proxy->userinfo(uri_escape($ENV{SAMLH_PROXY_USERNAME}) . ':' . uri_escape($ENV{SAMLH_PROXY_PASSWORD}));
    $ua->proxy('http', $proxy->as_string);
}

my $response = $ua->get($start);
my $ok = $response->code == 200;
my $error = $ok ? '' : $response->status_line . ' from ' . $response->request->uri
    . (($response->header('Client-Warning') // '') ? ' (' . $response->header('Client-Warning') . ')' : '');
my $result = {
    outcome  => $ok ? 'success' : 'failure',
    resource => $ok ? $response->decoded_content // '' : '',
    error    => $error,
    details  => { client => 'LWP::UserAgent', version => $LWP::UserAgent::VERSION,
                  credentials => 'characters',
                  status => '' . $response->code, redirects => '' . scalar($response->redirects) },
};
open(my $out, '>:raw', $ENV{SAMLH_RESULT_FILE}) or die "cannot write the result: $!";
print {$out} JSON::PP->new->utf8->canonical->encode($result);
close($out);
print STDERR "$error\n" unless $ok;
exit($ok ? 0 : 1);
