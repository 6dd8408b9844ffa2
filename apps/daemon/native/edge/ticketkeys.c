/*
 * Session tickets are sealed with a key the process makes itself and replaces every 12 hours; the
 * previous key still opens tickets for another period (the client then gets a ticket under the new
 * one). A stolen key thus opens a day of sessions at most, where OpenSSL's own key would live as
 * long as the process. Keys never leave memory.
 */
#include "ticketkeys.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#define ROTATE_SECONDS (12 * 3600)

typedef struct {
  unsigned char name[16];
  unsigned char aes[32];
  unsigned char hmac[32];
  time_t born;
  int ok;
} Key;

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static Key current, previous;

static int fresh(Key *k) {
  k->ok = RAND_bytes(k->name, sizeof k->name) == 1 && RAND_bytes(k->aes, sizeof k->aes) == 1 && RAND_bytes(k->hmac, sizeof k->hmac) == 1;
  k->born = time(NULL);
  return k->ok;
}

/* The key that seals now, rotated when its time is up. */
static int sealing(Key *out) {
  time_t now = time(NULL);
  pthread_rwlock_rdlock(&lock);
  int due = !current.ok || now - current.born >= ROTATE_SECONDS;
  if (!due) *out = current;
  pthread_rwlock_unlock(&lock);
  if (!due) return 1;
  pthread_rwlock_wrlock(&lock);
  if (!current.ok || now - current.born >= ROTATE_SECONDS) {
    Key next;
    if (fresh(&next)) {
      previous = current;
      current = next;
    }
  }
  *out = current;
  pthread_rwlock_unlock(&lock);
  return out->ok;
}

/* 1: the current key opened it; 2: the previous one (renew the ticket); 0: none. */
static int opening(const unsigned char name[16], Key *out) {
  int found = 0;
  pthread_rwlock_rdlock(&lock);
  if (current.ok && memcmp(name, current.name, 16) == 0) *out = current, found = 1;
  else if (previous.ok && memcmp(name, previous.name, 16) == 0 && time(NULL) - previous.born < 2 * ROTATE_SECONDS) *out = previous, found = 2;
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
  if (enc) {
    if (!sealing(&k) || RAND_bytes(iv, 16) != 1) return -1;
    memcpy(key_name, k.name, 16);
    if (EVP_EncryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, k.aes, iv) != 1 || hmac_key(hctx, k.hmac) != 1) return -1;
    return 1;
  }
  int found = opening(key_name, &k);
  /* An unknown or expired key: a full handshake, no error. */
  if (!found) return 0;
  if (hmac_key(hctx, k.hmac) != 1 || EVP_DecryptInit_ex(ctx, EVP_aes_256_cbc(), NULL, k.aes, iv) != 1) return -1;
  return found;
}
