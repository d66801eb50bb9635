export {
	apiErrorFromResponse,
	apiErrorOf,
	TranscriptionServiceClient,
	type ApiRequest,
	type RequestWatch,
} from './client';
export { cancelSignalOf, type BinaryStream, type RequestContext } from './context';
export { answerDateMs, type ApiResponse } from './http';
export type { ServiceSettings } from './settings';
