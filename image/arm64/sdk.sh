#!/usr/bin/env bash
# Writes the Swift SDK bundle for aarch64-unknown-linux-gnu over the arm64 sysroot
# ($cache/sdk/driftbox-aarch64.artifactbundle). The toolset links with the toolchain's own
# ld.lld and adds no rpath to the build machine's toolchain. Cheap: written on every build.
# Debian's compiler calls its host x86_64-pc-linux-gnu: both spellings are supported hosts.
source "$(dirname "$0")/common.sh"
bundle="$sdk_dir/driftbox-aarch64.artifactbundle"
variant="$bundle/driftbox-aarch64"
mkdir -p "$variant"
# Debian's swiftlang keeps its resources in usr/libexec/swift/lib (usr/lib/swift is a link).
resources=usr/libexec/swift/lib
[ -d "$sysroot/$resources/swift_static/linux/static-stdlib-args.lnk" ] || [ -f "$sysroot/$resources/swift_static/linux/static-stdlib-args.lnk" ] \
  || die "no $resources/swift_static in the sysroot (sysroot.sh)"
cat > "$bundle/info.json" <<JSON
{
  "schemaVersion": "1.0",
  "artifacts": {
    "driftbox-aarch64": {
      "type": "swiftSDK",
      "version": "6.2.3",
      "variants": [ { "path": "driftbox-aarch64", "supportedTriples": ["x86_64-unknown-linux-gnu", "x86_64-pc-linux-gnu"] } ]
    }
  }
}
JSON
cat > "$variant/swift-sdk.json" <<JSON
{
  "schemaVersion": "4.0",
  "targetTriples": {
    "aarch64-unknown-linux-gnu": {
      "sdkRootPath": "$sysroot",
      "swiftResourcesPath": "$sysroot/$resources/swift",
      "swiftStaticResourcesPath": "$sysroot/$resources/swift_static",
      "toolsetPaths": ["toolset.json"]
    }
  }
}
JSON
cat > "$variant/toolset.json" <<JSON
{
  "schemaVersion": "1.0",
  "swiftCompiler": { "extraCLIOptions": ["-use-ld=lld", "-no-toolchain-stdlib-rpath"] },
  "linker": { "path": "/usr/libexec/swift/bin/ld.lld" }
}
JSON
say "sdk: $bundle (sysroot $sysroot)"
