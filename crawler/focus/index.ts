/** Focused crawling: topic definitions, the scorers, the classifier interface and the crawl's policy. */
export {
  ClassifierError,
  TopicClassifier,
  loadClassifierModule,
  type Classification,
  type Classifier,
  type ClassifierContext,
  type ClassifyInput,
} from './classifier.ts';
export {
  DEFAULT_CUTOFF,
  DEFAULT_TUNNEL,
  focusing,
  follows,
  judge,
  loadFocus,
  loadTopicFocus,
  scoringOf,
  siteOK,
  type Focus,
  type FocusOptions,
  type Verdict,
} from './focus.ts';
export {
  DEFAULT_SCORING,
  LOCATIONS,
  scorePage,
  type ClassScore,
  type Location,
  type ScoringOptions,
  type TermMatch,
  type TopicPage,
  type TopicScore,
} from './scorers.ts';
export { loadTopicFile, parseTopic, TopicError, type Term, type TermPart, type Topic } from './topic.ts';
