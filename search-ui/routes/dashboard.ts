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
    if (!streams.enter())
      throw new HttpError(503, 'too-many-streams', `too many event streams open (${streams.max}, server.maxEventStreams): try again later`, {
        'retry-after': String(STREAMS_RETRY_AFTER_SECONDS),
      });
    return streamSSE(c, (stream) => sendStatus(stream, parts));
  });
};

/** The status as an event, every interval, until the client goes. */
async function sendStatus(stream: SSEStreamingApi, parts: ServerParts): Promise<void> {
  let open = true;
  stream.onAbort(() => {
    open = false;
  });
  try {
    while (open) {
      const s = await parts.status();
      await stream.writeSSE({
        event: 'status',
        data: JSON.stringify({ summary: statusLine(s), running: s.crawl.running, html: await liveStatus(s, parts.history.all) }),
      });
      await stream.sleep(parts.deps.eventIntervalMs ?? EVENT_INTERVAL_MS);
    }
  } finally {
    parts.streams.leave();
  }
}
