export { Extraction, type ExcludeRules, type PageSettings } from './extraction.ts';
export { COUNTERS, DEFAULT_TEMPLATE_SETTINGS, TemplateLearner, type Template, type TemplateSettings } from './learner.ts';
