// Media types and annotation keys of the image we publish. The layout is the Wasm image spec's "compat"
// variant (github.com/solo-io/wasm, spec-compat.md): one tar+gzip layer holding plugin.wasm. Istio's and
// Higress's fetcher (pkg/wasm/imagefetcher.go) tries this form first; its other OCI form, the artifact
// variant with application/vnd.module.wasm.content.layer.v1+wasm, is only accepted with exactly two layers.
export const OCI_IMAGE_INDEX = "application/vnd.oci.image.index.v1+json";
export const OCI_IMAGE_MANIFEST = "application/vnd.oci.image.manifest.v1+json";
export const OCI_IMAGE_CONFIG = "application/vnd.oci.image.config.v1+json";
export const OCI_LAYER_TAR_GZIP = "application/vnd.oci.image.layer.v1.tar+gzip";

/** File name the fetcher looks for inside the layer. */
export const WASM_PLUGIN_FILE = "plugin.wasm";

/** Manifest annotation the compat spec requires when the layer uses the OCI media type. */
export const WASM_VARIANT_ANNOTATION = "module.wasm.image/variant";
export const WASM_VARIANT_COMPAT = "compat";

export const ANNOTATION_TITLE = "org.opencontainers.image.title";
export const ANNOTATION_VERSION = "org.opencontainers.image.version";
export const ANNOTATION_DESCRIPTION = "org.opencontainers.image.description";
export const ANNOTATION_LICENSES = "org.opencontainers.image.licenses";
export const ANNOTATION_CREATED = "org.opencontainers.image.created";
/** Tag of a manifest inside an image layout's index.json (used by skopeo's oci:DIR:TAG). */
export const ANNOTATION_REF_NAME = "org.opencontainers.image.ref.name";
