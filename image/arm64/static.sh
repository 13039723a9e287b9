#!/usr/bin/env bash
# Builds the static libmosquitto.a Debian does not ship (libmosquitto-dev has only the shared
# library), from Debian's own source package (apt-get source mosquitto, sid), cross-compiled
# with the toolchain's clang against the arm64 sysroot, and puts it into the sysroot beside
# the other static archives (libgpiod.a, libserialport.a, libsqlite3.a, libssl.a, libcrypto.a).
# Only the client library is built: TLS on (driftd's MQTT over TLS), websockets, broker,
# clients, plugins and docs off. cJSON (needed by libmosquitto's common part) is compiled from
# Debian's cjson source package the same way (libcjson-dev ships no static archive either).
source "$(dirname "$0")/common.sh"
libdir="$sysroot/usr/lib/aarch64-linux-gnu"
# (No such .deb yet, e.g. a sysroot from an older cache: an empty list, which no stamp matches.)
want="$(cd "$debs/arm64" 2>/dev/null && ls libmosquitto-dev_*.deb libcjson-dev_*.deb 2>/dev/null | tr '\n' ' ' || true) v1"
if [ "${1:-}" != --rebuild ] && stamp_ok "$cache/static.stamp" "$want" && [ -f "$libdir/libmosquitto.a" ]; then
  say "static: reusing $libdir/libmosquitto.a"
  exit 0
fi
src="$cache/src"
mkdir -p "$src"
# Debian's source packages need a deb-src line in the chroot.
if [ ! -f "$chroot_dir/etc/apt/sources.list.d/driftbox-src.list" ]; then
  echo "deb-src $mirror $suite main" > "$chroot_dir/etc/apt/sources.list.d/driftbox-src.list"
  in_chroot apt-get -q update | tail -n 1
fi
for package in mosquitto cjson; do
  ls -d "$src/$package"-*/ >/dev/null 2>&1 && continue
  say "static: apt-get source $package"
  in_chroot /bin/sh -c "cd '$src' && apt-get -q -o APT::Sandbox::User=root source '$package'" | tail -n 1
done
mosquitto_src=$(ls -d "$src"/mosquitto-*/ | sort -V | tail -n 1)
cjson_src=$(ls -d "$src"/cjson-*/ | sort -V | tail -n 1)

toolchain="$cache/aarch64-toolchain.cmake"
cat > "$toolchain" <<CMAKE
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_SYSROOT $sysroot)
set(CMAKE_C_COMPILER /usr/libexec/swift/bin/clang)
set(CMAKE_C_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_CXX_COMPILER /usr/libexec/swift/bin/clang++)
set(CMAKE_CXX_COMPILER_TARGET aarch64-linux-gnu)
set(CMAKE_AR /usr/libexec/swift/bin/llvm-ar)
set(CMAKE_RANLIB /usr/libexec/swift/bin/llvm-ranlib)
set(CMAKE_EXE_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "-fuse-ld=lld")
set(CMAKE_FIND_ROOT_PATH $sysroot)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
CMAKE

say "static: cJSON ($(basename "$cjson_src"))"
build="$cache/static-build/cjson"; rm -rf "$build"; mkdir -p "$build"
in_chroot /bin/sh -c "cd '$build' && /usr/libexec/swift/bin/clang --target=aarch64-linux-gnu --sysroot='$sysroot' -O2 -fPIC -c '$cjson_src/cJSON.c' -o cJSON.o && /usr/libexec/swift/bin/llvm-ar rcs libcjson.a cJSON.o"
install -m 0644 "$build/libcjson.a" "$libdir/libcjson.a"

say "static: libmosquitto ($(basename "$mosquitto_src"))"
build="$cache/static-build/mosquitto"; rm -rf "$build"; mkdir -p "$build"
in_chroot /bin/sh -c "cd '$build' && cmake -S '$mosquitto_src' -B . -DCMAKE_TOOLCHAIN_FILE='$toolchain' -DCMAKE_BUILD_TYPE=Release \
    -DWITH_TLS=ON -DWITH_TLS_PSK=ON -DWITH_THREADING=ON \
    -DWITH_WEBSOCKETS=OFF -DWITH_SRV=OFF -DWITH_BROKER=OFF -DWITH_CLIENTS=OFF -DWITH_APPS=OFF \
    -DWITH_PLUGINS=OFF -DWITH_DOCS=OFF -DWITH_TESTS=OFF -DWITH_LIB_CPP=OFF -DWITH_LTO=OFF \
    -DWITH_CTRL_SHELL=OFF -DWITH_DLT=OFF -DINC_MEMTRACK=OFF -DWITH_BUNDLED_DEPS=ON >cmake.log 2>&1 \
  || { tail -n 30 cmake.log; exit 1; }
  nice -n 10 make -j2 libmosquitto >make.log 2>&1 || { tail -n 30 make.log; exit 1; }"
# mosquitto 2.1.2's own static target (WITH_STATIC_LIBRARIES=ON) does not compile: its
# lib/CMakeLists.txt gives libmosquitto_static no include path to libcommon/
# ("property_common.h file not found"). The shared library's objects are the same code
# (position independent): archive them with libmosquitto_common's into libmosquitto.a.
objects=$(find "$build/lib/CMakeFiles/libmosquitto.dir" "$build/libcommon/CMakeFiles/libmosquitto_common.dir" -name '*.o' | sort)
[ -n "$objects" ] || die "the mosquitto build left no objects (see $build/make.log)"
rm -f "$build/libmosquitto.a"
# shellcheck disable=SC2086
in_chroot /usr/libexec/swift/bin/llvm-ar rcs "$build/libmosquitto.a" $objects
install -m 0644 "$build/libmosquitto.a" "$libdir/libmosquitto.a"
printf '%s' "$want" > "$cache/static.stamp"
say "static: $(ls "$libdir"/libmosquitto*.a "$libdir"/libcjson.a | xargs -n1 basename | tr '\n' ' ')"
