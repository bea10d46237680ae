/**
 * The crawl dashboard: the page (`GET /status`, with "why is this URL not in the index?" when
 * `?url=` is given) and its live part as server-sent events (`GET /api/events`): the same fragment
 * (status-page.ts `liveStatus`), sent every `eventIntervalMs`, to at most server.maxEventStreams
 * dashboards at once.
 */
import type { SSEStreamingApi } from 'hono/streaming';
import { streamSSE } from 'hono/streaming';
import { MAX_URL_LENGTH } from '../api/schemas.ts';
import { EVENT_INTERVAL_MS } from '../deps.ts';
import { HttpError } from '../errors.ts';
import { layout } from '../pages.ts';
import type { Routes, ServerParts } from '../parts.ts';
import { liveStatus, statusBody } from '../status-page.ts';
import { statusLine } from '../status-line.ts';

/** When a dashboard refused for too many streams may try again, in seconds. */
const STREAMS_RETRY_AFTER_SECONDS = 5;

export const dashboard: Routes = (app, parts) => {
  const { deps, history, streams } = parts;
  app.get('/status', async (c) => {
    const url = c.req.query('url')?.trim().slice(0, MAX_URL_LENGTH);
    const lookup = url && deps.explain ? { url, answer: await deps.explain(url) } : undefined;
    const s = await parts.status();
    return c.html(
      layout({
        title: 'Crawl status — Trawl',
        status: statusLine(s),
        version: deps.version,
        wide: true,
        body: statusBody({ live: liveStatus(s, history.all), ...(lookup ? { lookup } : {}), admin: parts.adminOn }),
      }),
    );
  });

  app.get('/api/events', (c) => {
    const leave = streams.enter();
    if (!leave)
      throw new HttpError(503, 'too-many-streams', `too many event streams open (${streams.max}, server.maxEventStreams): try again later`, {
        'retry-after': String(STREAMS_RETRY_AFTER_SECONDS),
      });
    return streamSSE(c, (stream) => sendStatus(stream, parts, leave));
  });
};

/**
 * The status as an event, every interval, until the client goes. The stream's place is given back
 * the moment the client goes, and the wait for the next event ends then too: a dashboard closed
 * and opened again finds its place free.
 */
async function sendStatus(stream: SSEStreamingApi, parts: ServerParts, leave: () => void): Promise<void> {
  const gone = new Promise<void>((resolve) =>
    stream.onAbort(() => {
      leave();
      resolve();
    }),
  );
  try {
    while (!stream.aborted) {
      const s = await parts.status();
      await stream.writeSSE({
        event: 'status',
        data: JSON.stringify({ summary: statusLine(s), running: s.crawl.running, html: await liveStatus(s, parts.history.all) }),
      });
      await pause(parts.deps.eventIntervalMs ?? EVENT_INTERVAL_MS, gone);
    }
  } finally {
    leave();
  }
}

/** Waits `ms`, or until `gone` settles if that is sooner, leaving no timer behind. */
function pause(ms: number, gone: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const slept = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  return Promise.race([slept, gone]).finally(() => clearTimeout(timer));
}
