export * from './file-details';
export * from './link';
export * from './credential-target';
