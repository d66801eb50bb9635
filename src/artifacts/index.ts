export * from './file-name';
export * from './formats';
export * from './parse-content-disposition';
export * from './subrip';
export * from './webvtt';
