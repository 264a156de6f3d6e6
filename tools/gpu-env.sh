# Source this on a machine without a package registry (the GPU machine): it unpacks the .deb files
# carried in .deps/debs (opencl headers, ICD loader dev files, cmocka) into .deps/root when the
# system lacks them and points the compiler, pkg-config and the loader there.
# Fill .deps/debs beforehand where apt works:
#   (cd .deps/debs && apt-get download opencl-headers opencl-c-headers ocl-icd-opencl-dev \
#      ocl-icd-libopencl1 libcmocka-dev libcmocka0)
_root=$(pwd)/.deps/root
if [ -d .deps/debs ] && { [ ! -f /usr/include/CL/cl.h ] || ! pkg-config --exists cmocka 2>/dev/null; }; then
  mkdir -p "$_root"
  for f in .deps/debs/*.deb; do dpkg -x "$f" "$_root"; done
  _ml=$_root/usr/lib/x86_64-linux-gnu
  # pkg-config files carry prefix=/usr: rewrite them to the unpacked tree.
  for pc in "$_ml"/pkgconfig/*.pc "$_root"/usr/share/pkgconfig/*.pc; do
    [ -f "$pc" ] && sed -i "s|^prefix=/usr|prefix=$_root/usr|" "$pc"
  done
  # Keep the system's ICD loader at run time: it may know platforms (vendor dirs, OCL_ICD_VENDORS)
  # that a freshly unpacked loader would not.
  _sys=$(ldconfig -p 2>/dev/null | awk '/libOpenCL\.so\.1 /{print $NF; exit}')
  if [ -n "$_sys" ]; then rm -f "$_ml"/libOpenCL.so.1*; ln -sf "$_sys" "$_ml/libOpenCL.so"; fi
  export PKG_CONFIG_PATH="$_ml/pkgconfig:$_root/usr/share/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export CPATH="$_root/usr/include${CPATH:+:$CPATH}"
  export LIBRARY_PATH="$_ml${LIBRARY_PATH:+:$LIBRARY_PATH}"
  export LD_LIBRARY_PATH="$_ml${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
unset _root _ml _sys
