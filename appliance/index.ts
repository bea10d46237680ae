export { Appliance, type ApplianceStatus, type CrawlStatus, type IndexStatus, type Logger, type OpenOptions } from './appliance.ts';
