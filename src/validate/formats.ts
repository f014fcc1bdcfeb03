import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS with `exports.default`; NodeNext types the default import as the module
// object, while some loaders hand over the default export itself.
type AddFormats = typeof addFormatsModule.default;

/** ajv-formats' plugin, however the loader presents it. */
export const addFormats: AddFormats =
  (addFormatsModule as unknown as { default?: AddFormats }).default ?? (addFormatsModule as unknown as AddFormats);
