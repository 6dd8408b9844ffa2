/**
 * The one error path: anything thrown in a route ends here and leaves as HTTP 200 `{ret, msg}` in the
 * caller's language. Only static files get real HTTP status codes.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { msgOf } from '../lib/msgerror.js';
import { sayer } from './logs.js';
import { Ret, message, parseLang, LANG_HEADER, type Lang, type MessageKey, type Msg, type MsgValue, type RetCode } from '@lucky/contracts';

/** An expected failure: a code and a message key with its variables, translated when sent. */
export class AppError extends Error {
  constructor(
    readonly ret: RetCode,
    readonly key: MessageKey | null,
    readonly vars: Record<string, MsgValue> = {},
    /** Already-translated text (validation messages are built in the caller's language). */
    readonly text?: string,
  ) {
    super(text ?? key ?? 'error');
  }

  toMessage(lang: Lang): string {
    return this.text ?? (this.key ? message(lang, this.key, this.vars) : 'error');
  }
}

export const fail = (ret: RetCode, key: MessageKey, vars?: Record<string, MsgValue>) => new AppError(ret, key, vars);

/** A failure that already is a message (MsgError…), as the answer's `msg` in the caller's language. */
export function failedWith(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const m = msgOf(err);
  return new AppError(Ret.failed, m.key as MessageKey, m.vars ?? {});
}

/** The other way round: what an error says as a message, an AppError's own key included (for a rule's status or log). */
export function errorMsg(err: unknown): Msg {
  if (err instanceof AppError) return err.key ? ({ key: err.key, vars: err.vars } as Msg) : { key: 'rawText', vars: { text: err.message } };
  return msgOf(err);
}

declare module 'fastify' {
  interface FastifyRequest {
    lang: Lang;
  }
}

export function langOf(req: FastifyRequest): Lang {
  const h = req.headers[LANG_HEADER] ?? req.headers['accept-language'];
  return parseLang(Array.isArray(h) ? h[0] : h);
}

function isApi(req: FastifyRequest): boolean {
  return req.url.startsWith('/api/') || req.url === '/api';
}

export function sendError(req: FastifyRequest, reply: FastifyReply, ret: number, msg: string) {
  req.ret = ret;
  return reply.code(200).type('application/json; charset=utf-8').send({ ret, msg });
}

export function installEnvelope(app: FastifyInstance): void {
  app.decorateRequest('lang', 'zh_CN');
  app.addHook('onRequest', async (req) => {
    req.lang = langOf(req);
  });

  // Our own JSON parser: an empty body is "no body" (DELETE/PUT from scripts), bad JSON is a ret 1.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(new AppError(Ret.badRequest, 'invalidJson'), undefined);
    }
  });

  app.setErrorHandler((err: FastifyError | AppError, req, reply) => {
    const lang = req.lang ?? langOf(req);
    if (err instanceof AppError) return sendError(req, reply, err.ret, err.toMessage(lang));
    const code = (err as FastifyError).code;
    if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendError(req, reply, Ret.badRequest, message(lang, 'bodyTooLarge'));
    if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || code === 'FST_ERR_CTP_INVALID_CONTENT_LENGTH') {
      return sendError(req, reply, Ret.badRequest, message(lang, 'validationRoot', { detail: err.message }));
    }
    if (!isApi(req) && (err as FastifyError).statusCode && (err as FastifyError).statusCode! < 500) {
      return reply.code((err as FastifyError).statusCode!).send(err.message);
    }
    sayer(req.log).error({ key: 'logRequestFailed', vars: { url: req.url.split('?')[0] ?? '', detail: err.message } }, { err });
    if (!isApi(req)) return reply.code(500).type('text/plain').send('internal error');
    return sendError(req, reply, Ret.failed, message(lang, 'internal'));
  });

  app.setNotFoundHandler((req, reply) => {
    if (isApi(req)) return sendError(req, reply, Ret.notFound, message(req.lang, 'notFound'));
    return reply.code(404).type('text/plain').send('not found');
  });
}
