// The host scheduler: round-robin between hosts, per-host connections and delays, back-off, robots.txt waits.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hostPolicy } from '../settings-fixture.ts';
import { HostScheduler } from './hosts.ts';

describe('HostScheduler', () => {
  it('serves hosts round-robin', () => {
    const s = new HostScheduler(hostPolicy({ maxConnections: 10, delayMs: 0 }));
    for (const h of ['a', 'b', 'c']) s.addWork(h);
    const picks = Array.from({ length: 6 }, () => s.pick(0));
    assert.deepEqual(picks, ['a', 'b', 'c', 'a', 'b', 'c']);
  });

  it('never exceeds maxConnections per host: a slow host cannot take every worker', () => {
    const s = new HostScheduler(hostPolicy({ maxConnections: 2, delayMs: 0 }));
    s.addWork('slow');
    s.addWork('fast');
    const inFlight: Record<string, number> = { slow: 0, fast: 0 };
    for (let i = 0; i < 4; i++) {
      const h = s.pick(0)!;
      s.begin(h);
      inFlight[h]!++;
    }
    assert.deepEqual(inFlight, { slow: 2, fast: 2 });
    assert.equal(s.pick(0), undefined, 'both hosts are at their limit');
  });

  it('waits delayMs after a request ends before the next to the same host', () => {
    const s = new HostScheduler(hostPolicy({ maxConnections: 1, delayMs: 1000 }));
    s.addWork('a');
    s.begin(s.pick(0)!);
    s.end('a', 500, { ok: true });
    assert.equal(s.pick(1499), undefined);
    assert.equal(s.nextReadyAt(), 1500);
    assert.equal(s.pick(1500), 'a');
  });

  it('honours Crawl-delay when it is longer than delayMs', () => {
    const s = new HostScheduler(hostPolicy({ maxConnections: 1, delayMs: 100 }));
    s.addWork('a');
    s.setCrawlDelay('a', 2);
    s.begin(s.pick(0)!);
    s.end('a', 0, { ok: true });
    assert.equal(s.nextReadyAt(), 2000);
  });

  it('backs off exponentially on errors and respects Retry-After', () => {
    const s = new HostScheduler(hostPolicy({ maxConnections: 1, delayMs: 1000 }));
    s.addWork('a');
    s.begin('a');
    s.end('a', 0, { ok: false });
    assert.equal(s.nextReadyAt(), 1000);
    s.begin('a');
    s.end('a', 1000, { ok: false });
    assert.equal(s.nextReadyAt(), 3000, 'second error: twice the delay');
    s.begin('a');
    s.end('a', 3000, { ok: true, retryAfterMs: 60_000 });
    assert.equal(s.nextReadyAt(), 63_000);
  });

  it('holds a host back while its robots.txt loads, without holding others', () => {
    const s = new HostScheduler(hostPolicy({ maxConnections: 1, delayMs: 0 }));
    s.addWork('a');
    s.addWork('b');
    s.setWaitingForRobots('a', true);
    assert.equal(s.pick(0), 'b');
    s.begin('b');
    assert.equal(s.pick(0), undefined);
    s.setWaitingForRobots('a', false);
    assert.equal(s.pick(0), 'a');
  });

  it('forgets hosts without work', () => {
    const s = new HostScheduler(hostPolicy({ maxConnections: 1, delayMs: 0 }));
    s.addWork('a');
    s.addWork('b');
    s.noWork('a');
    assert.deepEqual([s.pick(0), s.pick(0)], ['b', 'b']);
    s.noWork('b');
    assert.equal(s.hasWork(), false);
  });
});
