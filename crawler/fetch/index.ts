export { AddressPolicy, BlockedAddressError, nonPublicRange, type PrivateAddressSetting } from './address-policy.ts';
export {
  Fetcher,
  parseRetryAfter,
  type FetchErrorCode,
  type FetchFailure,
  type FetchOptions,
  type FetchResponse,
  type FetchResult,
  type PageFetcher,
} from './fetcher.ts';
