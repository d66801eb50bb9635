export { openLinkedMedia, type MediaLinkSettings } from './linked-media';
export {
	mediaLinkProperties,
	mediaSourceProperty,
	readMediaLinkSettings,
	readMediaSource,
} from './properties';
