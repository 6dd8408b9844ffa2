/* Session ticket keys of every TLS rule of the process, rotated (ticketkeys.c). */
#ifndef LUCKY_EDGE_TICKETKEYS_H
#define LUCKY_EDGE_TICKETKEYS_H

#include <openssl/ssl.h>
#include <stdint.h>

int ticket_key_cb(SSL *s, unsigned char key_name[16], unsigned char iv[EVP_MAX_IV_LENGTH], EVP_CIPHER_CTX *ctx, EVP_MAC_CTX *hctx, int enc);
/* How long a key seals tickets (it opens them for twice that); 0 or less: the default, 12 hours. */
void ticket_keys_period(int64_t ms);

#endif
