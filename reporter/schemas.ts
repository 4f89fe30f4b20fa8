// Evaluated only through loadContractSchemas() (schemas-loader.ts).
export { IngestEventRequest, IngestEventResponse } from '../contract/events.js';
export { IngestMetricRequest, IngestMetricResponse } from '../contract/metrics.js';
