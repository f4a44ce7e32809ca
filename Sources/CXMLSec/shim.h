/*
 * CXMLSec: libxml2 + libxmlsec1 (OpenSSL backend) + zlib for Swift.
 *
 * SwiftPM drops the -D flags that `pkg-config --cflags xmlsec1-openssl` prints, and the
 * layout of xmlsec's structs depends on one of them: define what the installed xmlsec was
 * built with, before any other xmlsec include. SAMLCore checks the layout at start-up
 * (XMLLibrary.swift). Which defines those are follows from xmlsec's version (xmlsec/version.h
 * holds only macros), read here rather than in Package.swift, which cannot see the headers:
 *
 * - 1.2.x (Debian 12: 1.2.37): xmlSecSize is `unsigned int` on a 64-bit build unless xmlsec
 *   was configured with --enable-size-t (configure.ac: XMLSEC_NO_SIZE_T by default), and
 *   Debian's pkg-config adds XMLSEC_OPENSSL3_ENGINES.
 * - 1.3.x (Homebrew, Debian 13): xmlSecSize is always size_t and XMLSEC_NO_SIZE_T is gone;
 *   engines are off unless configured with --enable-openssl3-engines.
 *
 * Both leave out GOST and link the OpenSSL backend directly (no crypto dynamic loading); the
 * xmlsec CRYPTO/GOST/DL defines only choose which declarations the headers make.
 */
#ifndef CXMLSEC_SHIM_H
#define CXMLSEC_SHIM_H

#include <xmlsec/version.h>

#ifndef __XMLSEC_FUNCTION__
#define __XMLSEC_FUNCTION__ __func__
#endif
#if XMLSEC_VERSION_MAJOR == 1 && XMLSEC_VERSION_MINOR < 3
#ifndef XMLSEC_NO_SIZE_T
#define XMLSEC_NO_SIZE_T 1
#endif
#ifndef XMLSEC_OPENSSL3_ENGINES
#define XMLSEC_OPENSSL3_ENGINES 1
#endif
#endif
#ifndef XMLSEC_NO_GOST
#define XMLSEC_NO_GOST 1
#endif
#ifndef XMLSEC_NO_GOST2012
#define XMLSEC_NO_GOST2012 1
#endif
#ifndef XMLSEC_NO_CRYPTO_DYNAMIC_LOADING
#define XMLSEC_NO_CRYPTO_DYNAMIC_LOADING 1
#endif
#ifndef XMLSEC_CRYPTO_OPENSSL
#define XMLSEC_CRYPTO_OPENSSL 1
#endif

/*
 * libxml2's encoding.h includes <unicode/ucnv.h> when built with ICU; importing that next to
 * Foundation's own ICU module breaks the build. Nothing here uses the ICU converter: keep the
 * ICU header out and declare the two names encoding.h needs.
 */
#ifndef UCNV_H
#define UCNV_H
#include <stdint.h>
typedef struct UConverter UConverter;
typedef uint16_t UChar;
#endif

#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <libxml/valid.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlsave.h>
#include <libxml/c14n.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include <xmlsec/xmlsec.h>
#include <xmlsec/xmltree.h>
#include <xmlsec/xmldsig.h>
#include <xmlsec/xmlenc.h>
#include <xmlsec/templates.h>
#include <xmlsec/keys.h>
#include <xmlsec/keysmngr.h>
#include <xmlsec/transforms.h>
#include <xmlsec/errors.h>
#include <xmlsec/buffer.h>
#include <xmlsec/openssl/app.h>
#include <xmlsec/openssl/crypto.h>
#include <xmlsec/openssl/evp.h>

#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <openssl/ec.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/rand.h>

#include <zlib.h>

/* xmlFree is a global function pointer variable: Swift 6 treats it as shared mutable state. */
static inline void cxmlsec_xml_free(void *p) { if (p != NULL) { xmlFree(p); } }

/* xmlSecCheckVersion() is a macro. */
static inline int cxmlsec_check_version(void) { return xmlSecCheckVersion(); }

/*
 * xmlsec 1.3 takes a key from the keys manager only when KeyInfo names it ("strict" search),
 * unless a context asks for XMLSEC_KEYINFO_FLAGS_LAX_KEY_SEARCH; 1.2 always searched the
 * manager and has no such flag. SAMLCore's encryption and decryption managers hold exactly the
 * one key meant (the recipient's, the SP's), and their EncryptedKey names none.
 */
static inline unsigned int cxmlsec_lax_key_search(void) {
#ifdef XMLSEC_KEYINFO_FLAGS_LAX_KEY_SEARCH
    return XMLSEC_KEYINFO_FLAGS_LAX_KEY_SEARCH;
#else
    return 0;
#endif
}

/*
 * The KeyInfo children a decryption reads to find its key: an EncryptedKey (inline or by
 * RetrievalMethod) and a KeyName. Not X509Data or KeyValue: there they only name the key the
 * manager holds, and xmlsec 1.3 stops at a certificate it cannot match to that key instead of
 * searching the manager. Copied into the contexts of nested EncryptedKeys. Returns 0 or -1.
 */
static inline int cxmlsec_read_only_key_references(xmlSecKeyInfoCtxPtr ctx) {
    if (xmlSecPtrListAdd(&ctx->enabledKeyData, (xmlSecPtr)xmlSecKeyDataEncryptedKeyId) < 0) return -1;
    if (xmlSecPtrListAdd(&ctx->enabledKeyData, (xmlSecPtr)xmlSecKeyDataRetrievalMethodId) < 0) return -1;
    if (xmlSecPtrListAdd(&ctx->enabledKeyData, (xmlSecPtr)xmlSecKeyDataNameId) < 0) return -1;
    return 0;
}

/* ---- errors -------------------------------------------------------------------------- */

/* The last xmlsec error of this thread, kept so a failure can say what libxmlsec1 said. */
static inline char *cxmlsec_last_error_buffer(void) {
    static _Thread_local char buffer[512];
    return buffer;
}

static void cxmlsec_errors_callback(const char *file, int line, const char *func,
                                    const char *errorObject, const char *errorSubject,
                                    int reason, const char *msg) {
    (void)file; (void)line; (void)func;
    const char *reasonText = xmlSecErrorsGetMsg((xmlSecSize)0);
    for (xmlSecSize i = 0; xmlSecErrorsGetMsg(i) != NULL; ++i) {
        if (xmlSecErrorsGetCode(i) == reason) { reasonText = xmlSecErrorsGetMsg(i); break; }
    }
    snprintf(cxmlsec_last_error_buffer(), 512, "%s%s%s: %s%s%s",
             errorObject ? errorObject : "", errorSubject ? " " : "", errorSubject ? errorSubject : "",
             reasonText ? reasonText : "error", msg ? "; " : "", msg ? msg : "");
}

static inline void cxmlsec_clear_last_error(void) { cxmlsec_last_error_buffer()[0] = 0; }

/* ---- one-time initialisation ----------------------------------------------------------- */

static void cxmlsec_silent_generic_error(void *ctx, const char *msg, ...) { (void)ctx; (void)msg; }

/* Returns 0 on success, or a negative step number that failed. */
static inline int cxmlsec_initialize(void) {
    xmlInitParser();
    /* libxml2 must not print parse errors to stderr: SAMLCore reports them itself. */
    xmlThrDefSetGenericErrorFunc(NULL, cxmlsec_silent_generic_error);
    xmlSetGenericErrorFunc(NULL, cxmlsec_silent_generic_error);
    if (xmlSecInit() < 0) return -1;
    if (xmlSecCheckVersion() != 1) return -2;
    if (xmlSecOpenSSLAppInit(NULL) < 0) return -3;
    if (xmlSecOpenSSLInit() < 0) return -4;
    xmlSecErrorsSetCallback(cxmlsec_errors_callback);
    return 0;
}

/* ---- safe parsing ---------------------------------------------------------------------- */

/* A DOCTYPE stops the parse at once: SAML never needs one, and refusing it before its
 * internal subset is read closes XXE, entity expansion and DOCTYPE smuggling together. */
static void cxmlsec_refuse_internal_subset(void *ctx, const xmlChar *name,
                                           const xmlChar *externalID, const xmlChar *systemID) {
    (void)name; (void)externalID; (void)systemID;
    xmlParserCtxtPtr ctxt = (xmlParserCtxtPtr)ctx;
    if (ctxt->_private != NULL) { *((int *)ctxt->_private) = 1; }
    xmlStopParser(ctxt);
}

static void cxmlsec_refuse_entity_decl(void *ctx, const xmlChar *name, int type,
                                       const xmlChar *publicId, const xmlChar *systemId,
                                       xmlChar *content) {
    (void)name; (void)type; (void)publicId; (void)systemId; (void)content;
    xmlParserCtxtPtr ctxt = (xmlParserCtxtPtr)ctx;
    if (ctxt->_private != NULL) { *((int *)ctxt->_private) = 1; }
    xmlStopParser(ctxt);
}

/*
 * Parses `len` bytes. On failure returns NULL with *sawDoctype set when a DOCTYPE was refused,
 * or the parser's error in message/line/column.
 */
static inline xmlDocPtr cxmlsec_parse_memory(const char *buf, int len, int options,
                                             int *sawDoctype, char *message, int messageSize,
                                             int *line, int *column) {
    *sawDoctype = 0; *line = 0; *column = 0;
    if (messageSize > 0) message[0] = 0;
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (ctxt == NULL) { snprintf(message, messageSize, "out of memory"); return NULL; }
    ctxt->_private = sawDoctype;
    ctxt->sax->internalSubset = cxmlsec_refuse_internal_subset;
    ctxt->sax->entityDecl = cxmlsec_refuse_entity_decl;
    ctxt->sax->externalSubset = NULL;
    ctxt->sax->resolveEntity = NULL;
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, buf, len, "input.xml", NULL, options);
    if (*sawDoctype) {
        if (doc != NULL) { xmlFreeDoc(doc); doc = NULL; }
    } else if (doc == NULL || !ctxt->wellFormed) {
        /* const: libxml2 2.12 and later return a const pointer (Homebrew's), 2.9 a plain one. */
        const xmlError *err = xmlCtxtGetLastError(ctxt);
        if (err != NULL) {
            snprintf(message, messageSize, "%s", err->message ? err->message : "not well-formed");
            *line = err->line; *column = err->int2;
        } else {
            snprintf(message, messageSize, "not well-formed");
        }
        if (doc != NULL) { xmlFreeDoc(doc); doc = NULL; }
    }
    xmlFreeParserCtxt(ctxt);
    return doc;
}

/* ---- keys and certificates through OpenSSL -------------------------------------------- */

static inline EVP_PKEY *cxmlsec_generate_rsa(int bits) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, NULL);
    EVP_PKEY *pkey = NULL;
    if (ctx == NULL) return NULL;
    if (EVP_PKEY_keygen_init(ctx) <= 0 || EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, bits) <= 0 ||
        EVP_PKEY_keygen(ctx, &pkey) <= 0) { pkey = NULL; }
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

static inline EVP_PKEY *cxmlsec_generate_ec(int nid) {
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, NULL);
    EVP_PKEY *pkey = NULL;
    if (ctx == NULL) return NULL;
    if (EVP_PKEY_keygen_init(ctx) <= 0 || EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx, nid) <= 0 ||
        EVP_PKEY_keygen(ctx, &pkey) <= 0) { pkey = NULL; }
    EVP_PKEY_CTX_free(ctx);
    return pkey;
}

static inline int cxmlsec_nid_prime256v1(void) { return NID_X9_62_prime256v1; }
static inline int cxmlsec_nid_secp384r1(void) { return NID_secp384r1; }

/* Self-signed X.509 v3 certificate, SHA-256, CN=commonName, valid from notBefore (Unix time)
 * for `days` days. */
static inline X509 *cxmlsec_self_signed(EVP_PKEY *pkey, const char *commonName, long serial,
                                        long notBefore, int days) {
    X509 *x = X509_new();
    if (x == NULL) return NULL;
    X509_set_version(x, 2);
    ASN1_INTEGER_set(X509_get_serialNumber(x), serial);
    ASN1_TIME_set(X509_getm_notBefore(x), (time_t)notBefore);
    ASN1_TIME_set(X509_getm_notAfter(x), (time_t)notBefore + (time_t)days * 86400);
    X509_set_pubkey(x, pkey);
    X509_NAME *name = X509_get_subject_name(x);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8, (const unsigned char *)commonName, -1, -1, 0);
    X509_set_issuer_name(x, name);
    X509V3_CTX v3;
    X509V3_set_ctx_nodb(&v3);
    X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
    X509_EXTENSION *bc = X509V3_EXT_conf_nid(NULL, &v3, NID_basic_constraints, "critical,CA:FALSE");
    if (bc != NULL) { X509_add_ext(x, bc, -1); X509_EXTENSION_free(bc); }
    X509_EXTENSION *ku = X509V3_EXT_conf_nid(NULL, &v3, NID_key_usage,
                                             "critical,digitalSignature,keyEncipherment");
    if (ku != NULL) { X509_add_ext(x, ku, -1); X509_EXTENSION_free(ku); }
    if (X509_sign(x, pkey, EVP_sha256()) <= 0) { X509_free(x); return NULL; }
    return x;
}

/* Reads a memory BIO into a malloc'ed NUL-terminated string (free with free()). */
static inline char *cxmlsec_bio_string(BIO *bio) {
    char *data = NULL;
    long len = BIO_get_mem_data(bio, &data);
    char *out = (char *)malloc((size_t)len + 1);
    if (out == NULL) return NULL;
    memcpy(out, data, (size_t)len);
    out[len] = 0;
    return out;
}

static inline char *cxmlsec_private_key_pem(EVP_PKEY *pkey) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *out = NULL;
    if (PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL, NULL) > 0) out = cxmlsec_bio_string(bio);
    BIO_free(bio);
    return out;
}

static inline char *cxmlsec_public_key_pem(EVP_PKEY *pkey) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *out = NULL;
    if (PEM_write_bio_PUBKEY(bio, pkey) > 0) out = cxmlsec_bio_string(bio);
    BIO_free(bio);
    return out;
}

static inline char *cxmlsec_certificate_pem(X509 *x) {
    BIO *bio = BIO_new(BIO_s_mem());
    char *out = NULL;
    if (PEM_write_bio_X509(bio, x) > 0) out = cxmlsec_bio_string(bio);
    BIO_free(bio);
    return out;
}

static inline EVP_PKEY *cxmlsec_read_private_key(const char *pem, int len) {
    BIO *bio = BIO_new_mem_buf(pem, len);
    EVP_PKEY *pkey = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
    BIO_free(bio);
    return pkey;
}

static inline EVP_PKEY *cxmlsec_read_public_key(const char *pem, int len) {
    BIO *bio = BIO_new_mem_buf(pem, len);
    EVP_PKEY *pkey = PEM_read_bio_PUBKEY(bio, NULL, NULL, NULL);
    BIO_free(bio);
    return pkey;
}

static inline X509 *cxmlsec_read_certificate_pem(const char *pem, int len) {
    BIO *bio = BIO_new_mem_buf(pem, len);
    X509 *x = PEM_read_bio_X509(bio, NULL, NULL, NULL);
    BIO_free(bio);
    return x;
}

static inline X509 *cxmlsec_read_certificate_der(const unsigned char *der, int len) {
    const unsigned char *p = der;
    return d2i_X509(NULL, &p, len);
}

/* DER of a certificate into a malloc'ed buffer (free with free()); returns the length. */
static inline int cxmlsec_certificate_der(X509 *x, unsigned char **out) {
    unsigned char *buf = NULL;
    int len = i2d_X509(x, &buf);
    if (len <= 0) { *out = NULL; return len; }
    *out = (unsigned char *)malloc((size_t)len);
    memcpy(*out, buf, (size_t)len);
    OPENSSL_free(buf);
    return len;
}

static inline char *cxmlsec_certificate_subject(X509 *x) {
    BIO *bio = BIO_new(BIO_s_mem());
    X509_NAME_print_ex(bio, X509_get_subject_name(x), 0, XN_FLAG_RFC2253);
    char *out = cxmlsec_bio_string(bio);
    BIO_free(bio);
    return out;
}

static inline long cxmlsec_certificate_not_after(X509 *x) {
    struct tm tm;
    if (ASN1_TIME_to_tm(X509_get0_notAfter(x), &tm) != 1) return 0;
    return (long)timegm(&tm);
}

/* 1 RSA, 2 EC, 0 other. */
static inline int cxmlsec_key_kind(EVP_PKEY *pkey) {
    int id = EVP_PKEY_get_base_id(pkey);
    if (id == EVP_PKEY_RSA) return 1;
    if (id == EVP_PKEY_EC) return 2;
    return 0;
}

static inline void cxmlsec_pkey_free(EVP_PKEY *pkey) { EVP_PKEY_free(pkey); }
static inline void cxmlsec_x509_free(X509 *x) { X509_free(x); }
static inline EVP_PKEY *cxmlsec_certificate_public_key(X509 *x) { return X509_get_pubkey(x); }
static inline int cxmlsec_pkey_up_ref(EVP_PKEY *pkey) { return EVP_PKEY_up_ref(pkey); }

/* Wraps an EVP_PKEY (reference taken) into a bare xmlsec key: no X509 data, so duplicating it
 * per signature costs nothing (NOTES-xmlsec.md). */
static inline xmlSecKeyPtr cxmlsec_key_from_evp(EVP_PKEY *pkey) {
    if (EVP_PKEY_up_ref(pkey) != 1) return NULL;
    xmlSecKeyDataPtr data = xmlSecOpenSSLEvpKeyAdopt(pkey);
    if (data == NULL) { EVP_PKEY_free(pkey); return NULL; }
    xmlSecKeyPtr key = xmlSecKeyCreate();
    if (key == NULL) { xmlSecKeyDataDestroy(data); return NULL; }
    if (xmlSecKeySetValue(key, data) < 0) { xmlSecKeyDataDestroy(data); xmlSecKeyDestroy(key); return NULL; }
    return key;
}

static inline const EVP_MD *cxmlsec_md(int bits) {
    switch (bits) {
    case 1: return EVP_sha1();
    case 256: return EVP_sha256();
    case 384: return EVP_sha384();
    case 512: return EVP_sha512();
    default: return NULL;
    }
}

/*
 * Detached signature over raw octets (SAML HTTP-Redirect binding, saml-bindings-2.0-os
 * §3.4.4.1). RSA: PKCS#1 v1.5. ECDSA: the XML-DSig form r||s (RFC 4051 §3.3), as Shibboleth
 * and other SAML stacks put it in the Signature parameter. Returns the signature length, or -1.
 */
static inline int cxmlsec_sign_octets(EVP_PKEY *pkey, int mdBits, const unsigned char *data,
                                      size_t len, unsigned char *out, size_t outSize) {
    const EVP_MD *md = cxmlsec_md(mdBits);
    if (md == NULL) return -1;
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    unsigned char der[1024];
    size_t derLen = sizeof(der);
    int ok = EVP_DigestSignInit(mctx, NULL, md, NULL, pkey) == 1 &&
             EVP_DigestSign(mctx, NULL, &derLen, data, len) == 1 && derLen <= sizeof(der) &&
             EVP_DigestSign(mctx, der, &derLen, data, len) == 1;
    EVP_MD_CTX_free(mctx);
    if (!ok) return -1;
    if (EVP_PKEY_get_base_id(pkey) != EVP_PKEY_EC) {
        if (derLen > outSize) return -1;
        memcpy(out, der, derLen);
        return (int)derLen;
    }
    const unsigned char *p = der;
    ECDSA_SIG *sig = d2i_ECDSA_SIG(NULL, &p, (long)derLen);
    if (sig == NULL) return -1;
    int half = (EVP_PKEY_get_bits(pkey) + 7) / 8;
    if ((size_t)(2 * half) > outSize) { ECDSA_SIG_free(sig); return -1; }
    const BIGNUM *r = NULL, *s = NULL;
    ECDSA_SIG_get0(sig, &r, &s);
    int okr = BN_bn2binpad(r, out, half) == half;
    int oks = BN_bn2binpad(s, out + half, half) == half;
    ECDSA_SIG_free(sig);
    return (okr && oks) ? 2 * half : -1;
}

/* Returns 1 valid, 0 invalid, -1 error. */
static inline int cxmlsec_verify_octets(EVP_PKEY *pkey, int mdBits, const unsigned char *data,
                                        size_t len, const unsigned char *sig, size_t sigLen) {
    const EVP_MD *md = cxmlsec_md(mdBits);
    if (md == NULL) return -1;
    unsigned char der[1024];
    const unsigned char *toVerify = sig;
    size_t toVerifyLen = sigLen;
    if (EVP_PKEY_get_base_id(pkey) == EVP_PKEY_EC) {
        int half = (EVP_PKEY_get_bits(pkey) + 7) / 8;
        if (sigLen != (size_t)(2 * half)) return 0;
        ECDSA_SIG *es = ECDSA_SIG_new();
        BIGNUM *r = BN_bin2bn(sig, half, NULL);
        BIGNUM *s = BN_bin2bn(sig + half, half, NULL);
        ECDSA_SIG_set0(es, r, s);
        unsigned char *q = der;
        int n = i2d_ECDSA_SIG(es, NULL);
        if (n <= 0 || (size_t)n > sizeof(der)) { ECDSA_SIG_free(es); return -1; }
        n = i2d_ECDSA_SIG(es, &q);
        ECDSA_SIG_free(es);
        toVerify = der;
        toVerifyLen = (size_t)n;
    }
    EVP_MD_CTX *mctx = EVP_MD_CTX_new();
    int rc = -1;
    if (EVP_DigestVerifyInit(mctx, NULL, md, NULL, pkey) == 1) {
        rc = EVP_DigestVerify(mctx, toVerify, toVerifyLen, data, len) == 1 ? 1 : 0;
    }
    EVP_MD_CTX_free(mctx);
    ERR_clear_error();
    return rc;
}

/* Raw signing throughput baseline for the benchmark: `count` RSA/EC signatures of a SHA-256
 * digest through EVP, nothing else. Returns the number made. */
static inline int cxmlsec_raw_sign_loop(EVP_PKEY *pkey, int count) {
    unsigned char digest[32];
    unsigned char sig[1024];
    memset(digest, 0x5a, sizeof(digest));
    EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(pkey, NULL);
    if (ctx == NULL || EVP_PKEY_sign_init(ctx) <= 0) { EVP_PKEY_CTX_free(ctx); return 0; }
    if (EVP_PKEY_get_base_id(pkey) == EVP_PKEY_RSA) {
        EVP_PKEY_CTX_set_rsa_padding(ctx, RSA_PKCS1_PADDING);
    }
    EVP_PKEY_CTX_set_signature_md(ctx, EVP_sha256());
    int made = 0;
    for (int i = 0; i < count; ++i) {
        size_t sigLen = sizeof(sig);
        if (EVP_PKEY_sign(ctx, sig, &sigLen, digest, sizeof(digest)) == 1) made++;
    }
    EVP_PKEY_CTX_free(ctx);
    return made;
}

/* ---- raw DEFLATE (RFC 1951) for the HTTP-Redirect binding ------------------------------- */

/* windowBits -15: raw DEFLATE, no zlib header (saml-bindings-2.0-os §3.4.4.1); 15: zlib
 * framing (a common misconfiguration, produced on purpose). Returns the length or -1. */
static inline long cxmlsec_deflate(const unsigned char *in, size_t inLen, unsigned char *out,
                                   size_t outSize, int windowBits, int level) {
    z_stream s;
    memset(&s, 0, sizeof(s));
    if (deflateInit2(&s, level, Z_DEFLATED, windowBits, 8, Z_DEFAULT_STRATEGY) != Z_OK) return -1;
    s.next_in = (Bytef *)in; s.avail_in = (uInt)inLen;
    s.next_out = out; s.avail_out = (uInt)outSize;
    int rc = deflate(&s, Z_FINISH);
    long produced = (long)s.total_out;
    deflateEnd(&s);
    return rc == Z_STREAM_END ? produced : -1;
}

static inline size_t cxmlsec_deflate_bound(size_t inLen) { return (size_t)compressBound((uLong)inLen) + 64; }

/*
 * Inflates at most outSize bytes. Returns the length; -2 when the output would exceed outSize
 * (a deflate bomb is stopped there, never inflated whole), -3 truncated stream, -1 corrupt.
 * *consumed gets the number of input bytes used (trailing garbage is the caller's to judge).
 */
static inline long cxmlsec_inflate(const unsigned char *in, size_t inLen, unsigned char *out,
                                   size_t outSize, int windowBits, size_t *consumed) {
    z_stream s;
    memset(&s, 0, sizeof(s));
    *consumed = 0;
    if (inflateInit2(&s, windowBits) != Z_OK) return -1;
    s.next_in = (Bytef *)in; s.avail_in = (uInt)inLen;
    s.next_out = out; s.avail_out = (uInt)outSize;
    int rc = inflate(&s, Z_FINISH);
    long produced = (long)s.total_out;
    *consumed = (size_t)s.total_in;
    inflateEnd(&s);
    if (rc == Z_STREAM_END) return produced;
    if (rc == Z_DATA_ERROR || rc == Z_STREAM_ERROR || rc == Z_NEED_DICT || rc == Z_MEM_ERROR) return -1;
    if (s.avail_out == 0) return -2;
    return -3;
}

/* ---- message digests -------------------------------------------------------------------- */

/* One-shot digest by OpenSSL name ("MD5", "SHA256", "SHA512-256"). out must hold
 * EVP_MAX_MD_SIZE bytes. Returns 1 on success, 0 when the digest is unknown or fails. */
static inline int cxmlsec_digest(const char *name, const unsigned char *data, size_t len,
                                 unsigned char *out, unsigned int *outlen) {
    const EVP_MD *md = EVP_get_digestbyname(name);
    if (md == NULL) return 0;
    return EVP_Digest(data, len, out, outlen, md, NULL) == 1 ? 1 : 0;
}

#endif /* CXMLSEC_SHIM_H */
