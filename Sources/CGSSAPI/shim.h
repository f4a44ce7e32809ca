// MIT Kerberos's GSS-API (libgssapi_krb5, Debian's libkrb5-dev): the acceptor side of
// Negotiate/Kerberos for the mocks. The constants are macros Swift cannot import, so they
// are functions here.
#include <gssapi/gssapi.h>
#include <gssapi/gssapi_krb5.h>
#include <gssapi/gssapi_ext.h>

static inline OM_uint32 samlh_gss_error(OM_uint32 major) { return GSS_ERROR(major); }
static inline OM_uint32 samlh_gss_s_continue_needed(void) { return GSS_S_CONTINUE_NEEDED; }
static inline OM_uint32 samlh_gss_c_indefinite(void) { return GSS_C_INDEFINITE; }
static inline gss_cred_usage_t samlh_gss_c_accept(void) { return GSS_C_ACCEPT; }
static inline int samlh_gss_c_gss_code(void) { return GSS_C_GSS_CODE; }
static inline int samlh_gss_c_mech_code(void) { return GSS_C_MECH_CODE; }
static inline gss_OID samlh_gss_krb5_mech(void) { return (gss_OID)gss_mech_krb5; }
