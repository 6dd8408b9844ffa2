/* Session ticket keys of every TLS rule of the process, rotated (ticketkeys.c). */
#ifndef LUCKY_EDGE_TICKETKEYS_H
#define LUCKY_EDGE_TICKETKEYS_H

#include <openssl/ssl.h>

int ticket_key_cb(SSL *s, unsigned char key_name[16], unsigned char iv[EVP_MAX_IV_LENGTH], EVP_CIPHER_CTX *ctx, EVP_MAC_CTX *hctx, int enc);

#endif
