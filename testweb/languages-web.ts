/**
 * A small web of pages in many languages, none of which says what language it is in (no `<html
 * lang>`, no Content-Language) — but for /fr-header, whose server says it in Content-Language —
 * for the tests of language detection, per-language stemming and segmentation. The texts were
 * written for the tests, a few sentences each. Serve it with `serveHandler(languagesWebHandler)`.
 */
import type { RequestListener } from 'node:http';

export type LanguagePage = {
  /** The language the page is in (ISO 639-1), which it does not say. */
  readonly lang: string;
  readonly title: string;
  readonly text: string;
  /** Queries that find the page, and by what: a stem, a segment, a folded form. */
  readonly finds: readonly string[];
};

export const LANGUAGE_PAGES: Readonly<Record<string, LanguagePage>> = {
  '/de': {
    lang: 'de',
    title: 'Am Marktplatz',
    text:
      'Die alten Häuser am Marktplatz wurden im neunzehnten Jahrhundert von Handwerkern aus der Gegend gebaut. ' +
      'Hinter jedem Gebäude liegt ein schmaler Hof, und die Bewohner pflegen ihre Gärten mit großer Sorgfalt. ' +
      'Im Sommer treffen sich die Nachbarn abends auf dem Platz und erzählen Geschichten über die Stadt.',
    // "Haus" and "Garten" are not on the page: "Häuser" and "Gärten" are.
    finds: ['Haus', 'Garten', 'Geschichte'],
  },
  '/fr': {
    lang: 'fr',
    title: 'À la ferme',
    text:
      'Les chevaux galopent dans la prairie au lever du soleil, pendant que le fermier prépare le foin. Le plus vieux de ces animaux ' +
      "préfère rester à l'écurie quand il pleut. Les enfants du village viennent souvent les nourrir avec des pommes et des carottes.",
    // "cheval" is not on the page ("chevaux" is); "ecurie" without its accent.
    finds: ['cheval', 'ecurie', 'carotte'],
  },
  '/ru': {
    lang: 'ru',
    title: 'Городская библиотека',
    text:
      'Наша городская библиотека хранит тысячи старых книг и журналов. ' +
      'Новый читальный зал открылся в прошлом году, ' +
      'и теперь читатели приходят сюда каждый день. ' +
      'Здесь есть редкая книга о морских путешествиях девятнадцатого века.',
    // "новая" (the page says "Новый": the stemmer reads й), "библиотеки", "журнал".
    finds: ['новая', 'библиотеки', 'журнал'],
  },
  '/zh': {
    lang: 'zh',
    title: '北京的大学',
    // biome-ignore format: a sentence a line (3 bytes a character: joined, the line would pass 160 bytes)
    text:
      '我们每天下午在北京大学图书馆学习中文。' +
      '图书馆里有很多关于中国历史和文化的书。' +
      '周末的时候，学生们常常来这里安静地读书。',
    // Words inside sentences written without spaces.
    finds: ['历史', '文化', '读书'],
  },
  '/ja': {
    lang: 'ja',
    title: '東京のお知らせ',
    // biome-ignore format: a sentence a line (3 bytes a character: joined, the line would pass 160 bytes)
    text:
      '東京の図書館では、毎週土曜日に子供向けの読み聞かせ会が開かれています。' +
      '新しいデータベースの使い方を学ぶ講座も、大人の利用者に人気があります。',
    finds: ['図書館', 'データベース', '土曜日'],
  },
  '/th': {
    lang: 'th',
    title: 'ภาษาไทย',
    // biome-ignore format: a phrase a line (3 bytes a character: joined, the line would pass 160 bytes)
    text:
      'ภาษาไทยเป็นภาษาที่มีวรรณยุกต์ ' +
      'และเขียนโดยไม่เว้นวรรคระหว่างคำ ' +
      'นักเรียนหลายคนเรียนภาษาไทยที่มหาวิทยาลัยในกรุงเทพ',
    finds: ['มหาวิทยาลัย', 'กรุงเทพ'],
  },
  '/en': {
    lang: 'en',
    title: 'The city library',
    text: 'The city library keeps thousands of old books and journals. A new reading room opened last year, and readers now come every day to borrow novels.',
    finds: ['journal', 'novel', 'borrowing'],
  },
  '/fr-header': {
    lang: 'fr',
    title: 'Le marché',
    text:
      'Le marché du samedi attire les habitants de toute la vallée. ' +
      'Les marchands vendent des fromages, du miel et des légumes cultivés dans les jardins voisins.',
    finds: ['fromage', 'legume', 'jardin'],
  },
};

/** Says the language in Content-Language, not in the markup: the language is given, not detected. */
const CONTENT_LANGUAGE: Readonly<Record<string, string>> = { '/fr-header': 'fr-CH' };

/** `/`: links to every page; each page as written above, with no language in its markup. */
export const languagesWebHandler: RequestListener = (req, res) => {
  const path = (req.url ?? '/').split('?')[0]!;
  const send = (status: number, body: string, headers: Record<string, string> = {}) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(body);
  };
  if (path === '/')
    return send(
      200,
      `<!doctype html><html><head><title>Pages</title></head><body>${Object.keys(LANGUAGE_PAGES)
        .map((p) => `<p><a href="${p}">${p}</a></p>`)
        .join('')}</body></html>`,
    );
  const page = LANGUAGE_PAGES[path];
  if (!page) return send(404, '<!doctype html><title>Not found</title>');
  const language = CONTENT_LANGUAGE[path];
  send(
    200,
    `<!doctype html><html><head><meta charset="utf-8"><title>${page.title}</title></head>` +
      `<body><main><h1>${page.title}</h1><p>${page.text}</p></main></body></html>`,
    language ? { 'content-language': language } : {},
  );
};
