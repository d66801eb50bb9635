export * from './file-name';
export * from './formats';
export * from './parse-content-disposition';
