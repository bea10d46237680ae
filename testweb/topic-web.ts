/**
 * A fake web for focused crawling: a portal whose home page links to a small cluster of pages
 * about coins (on topic for config/topics/numismatics.txt) and to three large regions that are not
 * (sports, recipes, news), each page of which links on to three more of its region. Some coin pages
 * also link out to a news page, and one to a links directory (itself off topic) that alone leads to
 * a second cluster of coin pages: a crawl reaches those only by tunnelling through it. A page that
 * speaks of coins only as cryptocurrency is off topic by its negative terms.
 *
 *   /                      the portal (off topic)
 *   /coins/N               N < COINS: on topic; → /coins/N+1, /coins/N+2, /news/(7N mod REGION); /coins/0 → /directory, /coins/1 → /crypto
 *   /directory             off topic; → /collectors/0
 *   /collectors/N          N < COLLECTORS: on topic, reached only through /directory; → /collectors/N+1
 *   /crypto                off topic by negative weights (linked from /coins/1)
 *   /sports/N, /recipes/N, /news/N   N < REGION: off topic; → 2N+1, 2N+2, N+1 of the region (a tree: shallow)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export const TOPIC_WEB = { coins: 8, collectors: 4, region: 100 } as const;

/** Paths of the pages on topic, and of those off topic, that a crawl from / can reach. */
export function topicWebPages(): { onTopic: string[]; offTopic: string[] } {
  const range = (n: number, f: (i: number) => string) => Array.from({ length: n }, (_, i) => f(i));
  return {
    onTopic: [...range(TOPIC_WEB.coins, (i) => `/coins/${i}`), ...range(TOPIC_WEB.collectors, (i) => `/collectors/${i}`)],
    offTopic: ['/', '/directory', '/crypto', ...['sports', 'recipes', 'news'].flatMap((r) => range(TOPIC_WEB.region, (i) => `/${r}/${i}`))],
  };
}

const COIN_TEXTS = [
  'The denarius was the standard Roman silver coin. Numismatics studies coins like it: the mint, the obverse and the reverse.',
  'Greek drachmas and Roman coins: ancient coinage struck at the mint of Athens, prized by every numismatist.',
  'Gold coins and silver coins as bullion; grading a coin collection for numismatic value.',
  'Medals and commemorative coins from the Royal Mint, with their mintage figures.',
];

const REGION_TEXTS: Record<string, string> = {
  sports: 'The match ended in a draw after extra time; the striker scored twice and the keeper saved a penalty.',
  recipes: 'Whisk the eggs with sugar, fold in the flour, and bake for forty minutes until golden.',
  news: 'The council approved the new budget for roads and schools after a long debate on Tuesday.',
};

function page(title: string, text: string, links: string[]): string {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p>
<ul>${links.map((l) => `<li><a href="${l}">${l}</a></li>`).join('')}</ul></main></body></html>`;
}

/** The fake topic web's request handler (serve it with serveHandler). */
export function topicWebHandler(req: IncomingMessage, res: ServerResponse): void {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  const send = (status: number, body: string, type = 'text/html; charset=utf-8') => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  };
  if (path === '/robots.txt') {
    send(200, 'User-agent: *\nAllow: /\n', 'text/plain');
    return;
  }
  if (path === '/') {
    send(
      200,
      page('The Portal', 'Everything in one place: sports, recipes, news, and a corner for coins.', ['/sports/0', '/recipes/0', '/news/0', '/coins/0']),
    );
    return;
  }
  if (path === '/directory') {
    send(200, page('Links directory', 'Clubs and societies listed by city, with their opening hours and addresses.', ['/collectors/0']));
    return;
  }
  if (path === '/crypto') {
    send(
      200,
      page(
        'Bitcoin and other crypto coins',
        'Bitcoin is a cryptocurrency, not a coin. Bitcoin, Ethereum and every other cryptocurrency live on a blockchain; bitcoin mining needs no mint.',
        ['/news/1'],
      ),
    );
    return;
  }
  let m = /^\/(coins|collectors)\/(\d+)$/.exec(path);
  if (m) {
    const [, kind, n] = [m[0], m[1]!, Number(m[2])];
    const size = kind === 'coins' ? TOPIC_WEB.coins : TOPIC_WEB.collectors;
    if (n >= size) {
      send(404, 'not found', 'text/plain');
      return;
    }
    const next = [n + 1, n + 2].filter((i) => i < size).map((i) => `/${kind}/${i}`);
    const out = kind === 'coins' ? [`/news/${(7 * n) % TOPIC_WEB.region}`, ...(n === 0 ? ['/directory'] : []), ...(n === 1 ? ['/crypto'] : [])] : [];
    const title = kind === 'coins' ? `Coins of the ancient world, part ${n}` : `A coin collector's notes, part ${n}`;
    send(200, page(title, `${COIN_TEXTS[n % COIN_TEXTS.length]} (${kind} ${n})`, [...next, ...out]));
    return;
  }
  m = /^\/(sports|recipes|news)\/(\d+)$/.exec(path);
  if (m) {
    const region = m[1]!;
    const n = Number(m[2]);
    if (n >= TOPIC_WEB.region) {
      send(404, 'not found', 'text/plain');
      return;
    }
    const next = [2 * n + 1, 2 * n + 2, n + 1].filter((i) => i < TOPIC_WEB.region).map((i) => `/${region}/${i}`);
    send(200, page(`${region[0]!.toUpperCase()}${region.slice(1)}, page ${n}`, `${REGION_TEXTS[region]} (${region} ${n})`, next));
    return;
  }
  send(404, 'not found', 'text/plain');
}
