export { Appliance, NoCrawlError, type ApplianceStatus, type CrawlStatus, type IndexStatus, type OpenOptions } from './appliance.ts';
