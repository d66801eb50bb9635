export const CREDENTIAL_TYPE = 'transcriptionServiceApi';
