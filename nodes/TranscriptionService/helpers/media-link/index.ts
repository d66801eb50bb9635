export { MEDIA_LINK_CREDENTIAL_TYPE } from './credential';
export { openLinkedMedia, type LinkedMedia, type MediaLinkSettings } from './linked-media';
export {
	mediaLinkProperties,
	mediaSourceProperty,
	readMediaLinkSettings,
	readMediaSource,
	type MediaSource,
} from './properties';
