# Stand-ins for the heavy steps of image/arm64/*.sh, for tests/arm64/scripts_guard_test.py.
# Sourced by image/arm64/common.sh when DRIFTBOX_ARM64_HOOK names this file (never in a real
# build): it redefines run_mmdebstrap and in_chroot, the two functions every download, apt,
# dpkg, clang, cmake and swift build call goes through. Each stand-in leaves behind what the
# scripts check for next (a chroot with /usr/bin/swift, .debs, a sysroot with swift_static, the
# static archives, a driftd binary) in seconds, and appends one line to $GUARD_LOG:
#   <script> <step>          e.g. "sysroot.sh apt-get download", "build.sh swift build"
# GUARD_FAIL (an extended regex): the step whose log line matches it fails (exit 1).
# GUARD_SWIFTPM_FLAKES (default 0): how many times `swift build` first fails with SwiftPM
# 6.2.3's "product 'Configuration' required by package 'hummingbird'" (build.sh retries that).
# A heavy call these stand-ins do not know fails, naming itself: teach it here.

guard_step() {
  local entry
  entry="$(basename "$0") $*"
  printf '%s\n' "$entry" >> "${GUARD_LOG:?}"
  if [ -n "${GUARD_FAIL:-}" ] && [[ "$entry" =~ $GUARD_FAIL ]]; then
    echo "stand-in: '$entry' fails, as GUARD_FAIL asks" >&2
    return 1
  fi
}

run_mmdebstrap() {
  guard_step mmdebstrap || return 1
  mkdir -p "$chroot_dir/usr/bin" "$chroot_dir/etc/apt/sources.list.d" "$chroot_dir/var/lib/apt/lists"
  ln -sfn swift-6.2.3 "$chroot_dir/usr/bin/swift"
}

# Fakes what dpkg -x of one .deb leaves in the sysroot: the Swift packages their runtime
# directories (with an absolute symlink, which sysroot.sh must make relative).
guard_unpack() {
  local deb="$1" root="$2" package
  package="$(basename "$deb")"; package="${package%%_*}"
  mkdir -p "$root/usr/share/doc/$package" "$root/usr/lib/aarch64-linux-gnu/pkgconfig"
  case "$package" in
    swiftlang)
      mkdir -p "$root/usr/libexec/swift/lib/swift/linux/aarch64" "$root/usr/libexec/swift/lib/swift_static/linux"
      : > "$root/usr/libexec/swift/lib/swift_static/linux/static-stdlib-args.lnk"
      ln -sfn /usr/libexec/swift/lib/swift "$root/usr/lib/swift" ;;
  esac
}

in_chroot() {
  local script="${3:-}" in_dir="cd '([^']+)'" source_of="cd '([^']+)'.* source '([a-z0-9]+)'"
  case "$1 ${2:-}" in
    "/bin/sh -c")
      case "$script" in
        *"swift --version"*) guard_step swift --version || return 1; echo "Swift version 6.2.3 (stand-in)" ;;
        *"apt-get -q -o APT::Sandbox::User=root download"*)
          guard_step apt-get download || return 1
          local dir="$5" package; shift 5
          for package in "$@"; do : > "$dir/${package}_1.0-1_arm64.deb"; done ;;
        *" source "*)
          [[ "$script" =~ $source_of ]] || { echo "stand-in: cannot read: $script" >&2; return 1; }
          guard_step apt-get source "${BASH_REMATCH[2]}" || return 1
          mkdir -p "${BASH_REMATCH[1]}/${BASH_REMATCH[2]}-1.0" ;;
        *"cJSON.c"*)
          [[ "$script" =~ $in_dir ]]
          guard_step clang cJSON || return 1
          : > "${BASH_REMATCH[1]}/libcjson.a" ;;
        *"cmake -S"*)
          [[ "$script" =~ $in_dir ]]
          guard_step cmake+make mosquitto || return 1
          mkdir -p "${BASH_REMATCH[1]}/lib/CMakeFiles/libmosquitto.dir" "${BASH_REMATCH[1]}/libcommon/CMakeFiles/libmosquitto_common.dir"
          : > "${BASH_REMATCH[1]}/lib/CMakeFiles/libmosquitto.dir/mosquitto.c.o"
          : > "${BASH_REMATCH[1]}/libcommon/CMakeFiles/libmosquitto_common.dir/property_common.c.o" ;;
        *) guard_step "UNKNOWN in_chroot /bin/sh -c ${script:0:80}"; echo "stand-in: no stand-in for in_chroot /bin/sh -c $script" >&2; return 1 ;;
      esac ;;
    "/bin/sh "*build-info.sh)
      # The real script, on the host (it only reads git and writes the file it is given).
      guard_step build-info.sh || return 1
      GIT_OPTIONAL_LOCKS=0 /bin/sh "$2" "$3" "$4" ;;
    "apt-get -q")
      guard_step apt-get "$3" || return 1
      echo "Reading package lists... Done (stand-in)" ;;
    "apt-cache depends")
      if [ "$3" = --recurse ]; then
        guard_step apt-cache depends --recurse || return 1
        local argument
        for argument in "$@"; do case "$argument" in *:arm64) echo "$argument" ;; esac; done
        printf '%s\n' libc6:arm64 debconf:arm64 '  Depends: libc6:arm64'
      else
        guard_step apt-cache depends "$3" || return 1
        printf '%s\n' "$3" '  Depends: gcc-14:arm64'
      fi ;;
    "dpkg -x")
      guard_step dpkg -x || return 1
      guard_unpack "$3" "$4" ;;
    "/usr/libexec/swift/bin/llvm-ar rcs")
      guard_step llvm-ar "$(basename "$3")" || return 1
      : > "$3" ;;
    "/usr/libexec/swift/bin/llvm-objcopy --strip-debug")
      guard_step llvm-objcopy || return 1
      cp "$3" "$4" ;;
    "/usr/bin/env "*)
      local argument scratch=""
      for argument in "$@"; do
        [ "$scratch" = next ] && scratch="$argument"
        [ "$argument" = --scratch-path ] && scratch=next
      done
      guard_step swift build || return 1
      local flakes_file="$GUARD_LOG.flakes" flakes
      flakes="$(cat "$flakes_file" 2>/dev/null || echo 0)"
      if [ "$flakes" -lt "${GUARD_SWIFTPM_FLAKES:-0}" ]; then
        echo $((flakes + 1)) > "$flakes_file"
        echo "error: product 'Configuration' required by package 'hummingbird' target 'HummingbirdTLS' not found in package 'swift-configuration'."
        return 1
      fi
      mkdir -p "$scratch/aarch64-unknown-linux-gnu/release" \
               "$scratch/plugins/outputs/drift-box/driftd/destination/BuildInfoPlugin/Generated"
      printf 'stand-in aarch64 driftd\n' > "$scratch/aarch64-unknown-linux-gnu/release/driftd"
      local generated="$scratch/plugins/outputs/drift-box/driftd/destination/BuildInfoPlugin/Generated/BuildInfo.swift"
      [ -f "$generated" ] || printf '// stand-in\n' > "$generated"
      echo "Build complete! (stand-in)" ;;
    *)
      guard_step "UNKNOWN in_chroot $*"
      echo "stand-in: no stand-in for in_chroot $*: teach tests/arm64/standins.sh" >&2
      return 1 ;;
  esac
}
