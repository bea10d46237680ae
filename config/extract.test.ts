// The settings of site chrome (extract) and near-duplicates (index.nearDuplicates): defaults, and
// selectors checked when the config loads — a bad one stops Trawl at start, naming it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from './index.ts';

const problems = (overrides: Record<string, unknown>): string => {
  try {
    loadConfig({ overrides });
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    return [...e.problems, e.message].join('\n');
  }
  assert.fail('expected a ConfigError');
};

describe('extract and nearDuplicates settings', () => {
  it('default to learning templates and folding within 3 bits', () => {
    const c = loadConfig({ overrides: {} });
    assert.deepEqual(c.extract, { exclude: {}, template: { learn: true, minPages: 20, share: 0.3 } });
    assert.equal(c.index.nearDuplicates.maxDistance, 3);
  });

  it('take selectors per host, and for every host', () => {
    const exclude = { 'docs.example.org': ['.sidebar', 'table.navheader'], 'intra:8080': ['#menu > li', 'div[data-role="chrome"]'], '*': ['.cookie-banner'] };
    assert.deepEqual(loadConfig({ overrides: { extract: { exclude } } }).extract.exclude, exclude);
  });

  it('refuse a selector the parser cannot apply, and a key that is not a host', () => {
    assert.match(problems({ extract: { exclude: { 'docs.example.org': ['div['] } } }), /"div\[" is not a CSS selector the parser can apply/);
    assert.match(problems({ extract: { exclude: { 'docs.example.org': ['p::before'] } } }), /Pseudo-elements are not supported/);
    assert.match(problems({ extract: { exclude: { 'docs.example.org': [''] } } }), /is empty/);
    assert.match(
      problems({ extract: { exclude: { 'https://docs.example.org/': ['.x'] } } }),
      /extract.exclude.https:\/\/docs.example.org\/`: Invalid key in record — Per host/,
    );
    assert.match(problems({ index: { nearDuplicates: { maxDistance: 9 } } }), /maxDistance/);
  });
});
