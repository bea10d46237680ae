import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { LANGUAGE_PAGES } from '../../../testweb/languages-web.ts';
import { DETECTED, detectLanguage, detectorLoaded, loadDetector, SAMPLE_CHARS } from './detect.ts';

/** Two sentences in each language the test web lacks, written for the test. */
const MORE: Readonly<Record<string, string>> = {
  es: 'Los niños juegan en el parque mientras sus padres conversan bajo los árboles. Cada domingo, la familia visita a los abuelos que viven cerca del río.',
  it:
    'La cucina italiana è famosa in tutto il mondo per la sua semplicità. ' +
    'Ogni regione ha le sue ricette tradizionali, tramandate di generazione in generazione.',
  pt: 'As crianças brincam na praça enquanto os pais conversam à sombra das árvores. Todos os domingos, a família visita os avós que moram perto do rio.',
  nl: 'De kinderen spelen in het park terwijl hun ouders onder de bomen praten. Elke zondag bezoekt de familie de grootouders die vlak bij de rivier wonen.',
  sv: 'Barnen leker i parken medan deras föräldrar pratar under träden. Varje söndag besöker familjen morföräldrarna som bor nära floden.',
};

describe('language detection', () => {
  before(async () => {
    await loadDetector();
  });

  it('is loaded on demand, once', async () => {
    assert.equal(detectorLoaded(), true);
    await loadDetector();
  });

  it('tells each language from its text alone, marked as detected (a BCP 47 private-use subtag)', () => {
    const texts = [...Object.values(LANGUAGE_PAGES).map((p) => [p.lang, p.text] as const), ...Object.entries(MORE)];
    for (const [lang, text] of texts) assert.equal(detectLanguage(text), `${lang}${DETECTED}`, text.slice(0, 40));
  });

  it('says nothing when unsure: too little text', () => {
    assert.equal(detectLanguage('ok'), '');
    assert.equal(detectLanguage('東京'), '');
    assert.equal(detectLanguage('1234 5678'), '');
  });

  it('reads a bounded sample: a long English page that ends in German is English', () => {
    const text = `${LANGUAGE_PAGES['/en']!.text} `.repeat(Math.ceil(SAMPLE_CHARS / 100)) + LANGUAGE_PAGES['/de']!.text.repeat(50);
    assert.equal(detectLanguage(text), `en${DETECTED}`);
  });
});
