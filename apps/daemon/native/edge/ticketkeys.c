/*
 * Session tickets are sealed with a key the process makes itself and replaces every 12 hours; the
 * previous key still opens tickets for another period (the client then gets a ticket under the new
 * one). A stolen key thus opens a day of sessions at most, where OpenSSL's own key would live as
 * long as the process. Keys never leave memory.
 *
 * Keys are replaced when next used, not on a timer: a key is due once it is a period old, whether a
 * handshake wants to seal or to open, so a rule left idle for days does not open a ticket sealed
 * under a key older than two periods. The clock is monotonic (a clock set back must not make an
 * old key young) and in milliseconds, so that tests can rotate in a second (ticket_keys_period).
 */
#include "ticketkeys.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <string.h>

#include "edge.h"

#define DEFAULT_PERIOD_MS (12LL * 3600 * 1000)

typedef struct {
  unsigned char name[16];
  unsigned char aes[32];
  unsigned char hmac[32];
  int64_t born;
  int ok;
} Key;

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static Key current, previous;
static int64_t period_ms = DEFAULT_PERIOD_MS;

void ticket_keys_period(int64_t ms) {
  pthread_rwlock_wrlock(&lock);
  period_ms = ms > 0 ? ms : DEFAULT_PERIOD_MS;
  pthread_rwlock_unlock(&lock);
}

static int fresh(Key *k, int64_t now) {
  k->ok = RAND_bytes(k->name, sizeof k->name) == 1 && RAND_bytes(k->aes, sizeof k->aes) == 1 && RAND_bytes(k->hmac, sizeof k->hmac) == 1;
  k->born = now;
  return k->ok;
}

static void forget(Key *k) { OPENSSL_cleanse(k, sizeof *k); }

/* Under the write lock: a new current key once the one sealing now is a period old. */
static void rotate_if_due(int64_t now) {
  if (current.ok && now - current.born < period_ms) return;
  Key next;
  if (!fresh(&next, now)) return forget(&next);
  forget(&previous);
  /* A key more than two periods old opens nothing: it is not kept as the previous one. */
  if (current.ok && now - current.born < 2 * period_ms) previous = current;
  current = next;
  forget(&next);
}

static int due(int64_t now) { return !current.ok || now - current.born >= period_ms; }

/* The key that seals now. */
static int sealing(Key *out) {
  int64_t now = edge_now_ms();
  pthread_rwlock_rdlock(&lock);
  int late = due(now);
  if (!late) *out = current;
  pthread_rwlock_unlock(&lock);
  if (!late) return 1;
  pthread_rwlock_wrlock(&lock);
  rotate_if_due(now);
  *out = current;
  pthread_rwlock_unlock(&lock);
  return out->ok;
}

/* 1: the current key opened it; 2: the previous one (renew the ticket); 0: none. */
static int opening(const unsigned char name[16], Key *out) {
  int64_t now = edge_now_ms();
  pthread_rwlock_rdlock(&lock);
  int late = due(now);
  pthread_rwlock_unlock(&lock);
  if (late) {
    pthread_rwlock_wrlock(&lock);
    rotate_if_due(now);
    pthread_rwlock_unlock(&lock);
  }
  int found = 0;
  pthread_rwlock_rdlock(&lock);
  if (current.ok && memcmp(name, current.name, 16) == 0) *out = current, found = 1;
  else if (previous.ok && memcmp(name, previous.name, 16) == 0 && now - previous.born < 2 * period_ms) *out = previous, found = 2;
  pthread_rwlock_unlock(&lock);
  return found;
}

static int hmac_key(EVP_MAC_CTX *hctx, unsigned char *key) {
  OSSL_PARAM params[] = {
      OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, key, 32),
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
      OSSL_PARAM_construct_end(),
  };
  return EVP_MAC_CTX_set_params(hctx, params);
}

int ticket_key_cb(SSL *s, unsigned char key_name[16], unsigned char iv[EVP_MAX_IV_LENGTH], EVP_CIPHER_CTX *ctx, EVP_MAC_CTX *hctx, int enc) {
  (void)s;
  Key k;
  int rc = -1;
  if (enc) {
    if (sealing(&k) && RAND_bytes(iv, 16) == 1) {
      memcpy(key_name, k.name, 16);
      if (EVP_EncryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, k.aes, iv) == 1 && hmac_key(hctx, k.hmac) == 1) rc = 1;
    }
  } else {
    int found = opening(key_name, &k);
    /* An unknown or expired key: a full handshake, no error. */
    if (!found) rc = 0;
    else if (hmac_key(hctx, k.hmac) == 1 && EVP_DecryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, k.aes, iv) == 1) rc = found;
  }
  /* The copy on the stack is not left behind either. */
  forget(&k);
  return rc;
}
