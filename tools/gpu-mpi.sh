# Source this (after tools/gpu-env.sh) on a machine without a package registry and without MPI (the
# GPU machines): it unpacks Debian's Open MPI, carried as .deb files in .deps/mpi-debs, into
# .deps/mpiroot and points meson (pkg-config), the loader and Open MPI's own relocation variables
# there, so that `meson setup -Dmpi=enabled` builds clsort-mpi and `mpirun` starts it.
# Fill .deps/mpi-debs beforehand where apt works (Debian 12 names; the C library, libstdc++, zlib,
# libudev and libuuid are taken from the system):
#   (cd .deps/mpi-debs && apt-get download openmpi-bin openmpi-common libopenmpi3 libopenmpi-dev \
#      libpmix2 libevent-core-2.1-7 libevent-pthreads-2.1-7 libfabric1 libhwloc15 libibverbs1 \
#      ibverbs-providers libmunge2 libnl-3-200 libnl-route-3-200 libnuma1 libpsm-infinipath1 \
#      libpsm2-2 librdmacm1 libucx0 libatomic1)
if ! command -v mpirun >/dev/null 2>&1 && [ -d .deps/mpi-debs ]; then
  _root=$(pwd)/.deps/mpiroot
  _ml=$_root/usr/lib/x86_64-linux-gnu
  if [ ! -x "$_root/usr/bin/orterun" ]; then
    mkdir -p "$_root"
    for f in .deps/mpi-debs/*.deb; do dpkg -x "$f" "$_root"; done
    for pc in "$_ml"/pkgconfig/ompi*.pc "$_ml"/openmpi/lib/pkgconfig/*.pc; do
      [ -f "$pc" ] && sed -i "s|^prefix=/usr|prefix=$_root/usr|" "$pc"
    done
    # The binaries reach each other through /etc/alternatives on Debian: name them directly.
    ln -sf orterun "$_root/usr/bin/mpirun"
    ln -sf opal_wrapper "$_root/usr/bin/mpicc"
  fi
  export PATH="$_root/usr/bin:$PATH"
  export PKG_CONFIG_PATH="$_ml/pkgconfig:$_ml/openmpi/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
  export LD_LIBRARY_PATH="$_ml/openmpi/lib:$_ml/pmix2/lib:$_ml:$_ml/libfabric${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  # Open MPI and PMIx find their components and help files relative to these prefixes.
  export OPAL_PREFIX="$_root/usr"
  export PMIX_INSTALL_PREFIX="$_ml/pmix2" PMIX_MCA_mca_base_component_path="$_ml/pmix2/lib/pmix"
  unset _root _ml
fi
# The GPU machines run commands as root, which mpirun refuses unless told.
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
