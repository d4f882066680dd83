import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import type { JsonAnswer } from '../json-answer.js';

// A proxy in front of a real deployment that breaks one rule of the
// interface: it may rewrite a request before passing it on, or the answer
// before giving it back. The contract suite's strength is measured by
// pointing it at such proxies, one broken rule at a time
// (mutations.test.ts). WebSocket upgrades (the relay) pass through as is.

export interface ProxiedRequest {
  method: string;
  /** Where it goes; a hook may change its path (not on signed requests: the signature covers it) or its origin. */
  url: URL;
  headers: Record<string, string>;
  body: string;
}

export interface ProxiedAnswer {
  status: number;
  headers: Record<string, string>;
  text: string;
}

/** What a mutation remembers across requests (answers it saw). */
export type ProxyMemory = Map<string, unknown>;

export interface Mutation {
  /** What the broken implementation does. */
  name: string;
  /** The check expected to catch it. */
  caughtBy: string;
  /** Rewrites the request; answering an answer instead answers it without asking the deployment. */
  request?(request: ProxiedRequest, memory: ProxyMemory): ProxiedAnswer | void;
  /** Rewrites the answer. */
  answer?(request: ProxiedRequest, answer: ProxiedAnswer, memory: ProxyMemory): void;
}

const json = (text: string): JsonAnswer => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/** Helpers for mutations that change a JSON answer. */
export const jsonAnswer = {
  read: (answer: ProxiedAnswer) => json(answer.text),
  write(answer: ProxiedAnswer, body: unknown, status = answer.status) {
    answer.status = status;
    answer.text = JSON.stringify(body);
    answer.headers['content-type'] = 'application/json; charset=utf-8';
  },
};

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Serves the proxy on a random loopback port; `mutation` undefined passes everything through. */
export async function startMutatingProxy(
  upstream: string,
  mutation?: Mutation,
): Promise<{ baseUrl: string; server: Server; close(): Promise<void> }> {
  const memory: ProxyMemory = new Map();
  const target = new URL(upstream);
  const server = createServer(async (req, res) => {
    try {
      const headers = Object.fromEntries(
        Object.entries(req.headers)
          .filter(([name]) => !['host', 'content-length', 'connection', 'transfer-encoding'].includes(name))
          .map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : (value ?? '')]),
      );
      const request: ProxiedRequest = {
        method: req.method ?? 'GET',
        url: new URL(req.url ?? '/', upstream),
        headers,
        body: await readBody(req),
      };
      let answer = mutation?.request?.(request, memory) ?? undefined;
      if (!answer) {
        // Where the hook left it: a hook may send a request to another deployment (split-proxy.ts).
        const response = await fetch(request.url, {
          method: request.method,
          headers: request.headers,
          redirect: 'manual',
          ...(request.body !== '' || !['GET', 'HEAD'].includes(request.method) ? { body: request.body } : {}),
        });
        const answerHeaders: Record<string, string> = {};
        response.headers.forEach((value, name) => {
          if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive'].includes(name))
            answerHeaders[name] = value;
        });
        answer = { status: response.status, headers: answerHeaders, text: await response.text() };
        mutation?.answer?.(request, answer, memory);
      }
      res
        .writeHead(answer.status, { ...answer.headers, 'content-length': Buffer.byteLength(answer.text) })
        .end(answer.text);
    } catch (error) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${(error as Error).message}`);
    }
  });
  // The relay: the upgrade request and everything after it, byte for byte.
  server.on('upgrade', (req, socket, head) => {
    const upstreamSocket = connect(Number(target.port), target.hostname, () => {
      const lines = [
        `${req.method} ${req.url} HTTP/1.1`,
        ...Object.entries(req.headers).map(
          ([name, value]) => `${name}: ${Array.isArray(value) ? value.join(', ') : value}`,
        ),
      ];
      upstreamSocket.write(`${lines.join('\r\n')}\r\n\r\n`);
      if (head.length > 0) upstreamSocket.write(head);
      upstreamSocket.pipe(socket).pipe(upstreamSocket);
    });
    const end = () => {
      upstreamSocket.destroy();
      socket.destroy();
    };
    upstreamSocket.on('error', end);
    socket.on('error', end);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
