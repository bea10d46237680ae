export { Appliance, NoCrawlError, type ApplianceStatus, type CrawlStatus, type IndexStatus, type OpenOptions } from './appliance.ts';
export { migrateStore, openStore, storeLocationOf, type MigrateReport } from './open-store.ts';
export { listWorkers, type WorkerLine } from './workers.ts';
export { Coordinator } from './coordinator.ts';
export { SearchLog, searchLogFor } from './search-log.ts';
export { SearchReports, searchReportsFor } from './search-reports.ts';
export { Curation, CuratedSearcher, curationFor, leversOf } from './curation.ts';
export { ClickLearner } from './click-learner.ts';
export { ClickModel, CLICK_MODEL } from './click-model.ts';
