# The GPU modules, included by the top-level CMakeLists.txt before splitzip_config.h is written.
#
#   libsplitzip_cuda.so  nvcc through CMake's CUDA language; cudart linked statically, so the
#                        module loads on machines without a CUDA toolkit (and reports no device)
#   libsplitzip_hip.so   a HIP compiler called directly (clang++-19, amdclang++ or hipcc; below)
#
# Both land next to libsplitzip.so, which never links a GPU runtime: dispatch/sz_gpu.c dlopen()s
# them. Sets SPLITZIP_HAVE_CUDA / SPLITZIP_HAVE_HIP (0 or 1) and SPLITZIP_INSTALL_LIBDIR.
include(CheckLanguage)
include(GNUInstallDirs)

set(SPLITZIP_HAVE_CUDA 0)
set(SPLITZIP_HAVE_HIP 0)
set(SPLITZIP_INSTALL_LIBDIR ${CMAKE_INSTALL_FULL_LIBDIR})
set(SPLITZIP_CUDA_ARCHS "80-real;90-real;100-real;120" CACHE STRING
	"CUDA architectures of the CUDA module (SASS for each, PTX for the last)")

set(SZ_GPU_SOURCES
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_compat.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_args.h
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_kernels.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_common.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_header.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_encode.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_entropy_enc.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_entropy_dec.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_decode.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_batch.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_driver.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_module.h
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_module.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_pages_args.h
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_pages.cuh
	${PROJECT_SOURCE_DIR}/core/sz_pages.h
	${PROJECT_SOURCE_DIR}/core/sz_layout.h
	${PROJECT_SOURCE_DIR}/core/sz_hash.h
	${PROJECT_SOURCE_DIR}/core/sz_common.h
	${PROJECT_SOURCE_DIR}/include/splitzip.h)

# ---- CUDA ----------------------------------------------------------------------------------
if(NOT SPLITZIP_WITH_CUDA STREQUAL "OFF")
	check_language(CUDA)
	if(CMAKE_CUDA_COMPILER)
		enable_language(CUDA)
		set(SPLITZIP_HAVE_CUDA 1)
	elseif(SPLITZIP_WITH_CUDA STREQUAL "ON")
		message(FATAL_ERROR "SPLITZIP_WITH_CUDA=ON but no CUDA compiler (nvcc) was found")
	endif()
endif()
if(SPLITZIP_HAVE_CUDA)
	add_library(splitzip_cuda MODULE ${PROJECT_SOURCE_DIR}/backends/cuda/sz_cuda.cu)
	set_target_properties(splitzip_cuda PROPERTIES
		CUDA_ARCHITECTURES "${SPLITZIP_CUDA_ARCHS}"
		CUDA_STANDARD 17
		CUDA_STANDARD_REQUIRED ON
		CUDA_RUNTIME_LIBRARY Static
		CUDA_VISIBILITY_PRESET hidden
		PREFIX "lib"
		LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
	target_include_directories(splitzip_cuda PRIVATE
		${PROJECT_SOURCE_DIR}/backends/cuda ${PROJECT_SOURCE_DIR}/backends/gpu)
	# Spills are warnings (errors with SPLITZIP_WERROR). -Xptxas -v: the compile runs through
	# cmake/nvcc_ptxas_log.sh, which writes what ptxas printed for each architecture to
	# ${PROJECT_BINARY_DIR}/ptxas/sm_<arch>.log, the exact text nvcc prints; ci/ptxas-table.sh
	# (ctest gpu.ptxas) and other readers of the kernels' resource usage read those files
	# instead of compiling the module again.
	target_compile_options(splitzip_cuda PRIVATE -Xptxas=-v -Xptxas=--warn-on-spills
		$<$<BOOL:${SPLITZIP_WERROR}>:--Werror=all-warnings>)
	set_target_properties(splitzip_cuda PROPERTIES CUDA_COMPILER_LAUNCHER
		"bash;${PROJECT_SOURCE_DIR}/cmake/nvcc_ptxas_log.sh;${PROJECT_BINARY_DIR}/ptxas")
	message(STATUS "splitzip: CUDA module for ${SPLITZIP_CUDA_ARCHS}")
endif()

# ---- HIP -----------------------------------------------------------------------------------
# One compiler builds every target of SPLITZIP_HIP_ARCHS into one offload bundle, without the
# ROCm device libraries (-nogpulib: the kernels use compiler builtins only, doc/AMD.md):
#   - SPLITZIP_HIP_COMPILER if set: a clang++ with HIP support (amdclang++, clang++-19) or hipcc;
#   - else a ROCm installation (ROCM_PATH, then /opt/rocm): its amdclang++, then its hipcc;
#   - else Debian's clang++-19 (or newer) with the HIP headers of libamdhip64-dev;
#   - else hipcc on the PATH (Debian's is ROCm 5.2: no gfx942 or gfx1200, which are left out).
set(SPLITZIP_HIP_ARCHS "gfx90a;gfx942;gfx1100;gfx1200" CACHE STRING
	"AMD targets of the HIP module (gfx90a MI200, gfx942 MI300, gfx1100 RDNA3, gfx1200 RDNA4)")
set(SPLITZIP_HIP_COMPILER "" CACHE FILEPATH
	"HIP module compiler: amdclang++, clang++-19 or hipcc (empty: search, doc/AMD.md)")
set(SPLITZIP_HIP_FLAGS "" CACHE STRING "Extra flags for the HIP module (e.g. --rocm-path=...)")

function(sz_find_hip_compiler out)
	if(SPLITZIP_HIP_COMPILER)
		set(${out} ${SPLITZIP_HIP_COMPILER} PARENT_SCOPE)
		return()
	endif()
	set(roots)
	if(DEFINED ENV{ROCM_PATH})
		list(APPEND roots $ENV{ROCM_PATH})
	endif()
	list(APPEND roots /opt/rocm)
	foreach(r ${roots})
		foreach(c llvm/bin/amdclang++ bin/hipcc)
			if(EXISTS ${r}/${c})
				set(${out} ${r}/${c} PARENT_SCOPE)
				return()
			endif()
		endforeach()
	endforeach()
	find_path(SZ_HIP_HEADERS hip/hip_runtime.h)
	find_program(SZ_HIP_CLANG NAMES clang++-19 clang++-20 clang++-21 clang++-22)
	if(SZ_HIP_HEADERS AND SZ_HIP_CLANG)
		set(${out} ${SZ_HIP_CLANG} PARENT_SCOPE)
		return()
	endif()
	find_program(SZ_HIP_HIPCC hipcc)
	set(${out} ${SZ_HIP_HIPCC} PARENT_SCOPE)
endfunction()

if(NOT SPLITZIP_WITH_HIP STREQUAL "OFF")
	sz_find_hip_compiler(SZ_HIP_CXX)
	if(SZ_HIP_CXX)
		# clang needs -x hip and links the HIP runtime with --hip-link; hipcc adds both itself.
		get_filename_component(sz_hip_name ${SZ_HIP_CXX} NAME)
		separate_arguments(sz_hip_extra UNIX_COMMAND "${SPLITZIP_HIP_FLAGS}")
		set(SZ_HIP_COMPILE ${SZ_HIP_CXX} -x hip -nogpulib ${sz_hip_extra})
		set(SZ_HIP_LINK)
		if(NOT sz_hip_name MATCHES "hipcc")
			set(SZ_HIP_LINK --hip-link)
		else() # ROCm 5.2's clang leaves an empty directory in TMPDIR per compile: keep them here
			file(MAKE_DIRECTORY ${PROJECT_BINARY_DIR}/hip-tmp)
			set(SZ_HIP_COMPILE ${CMAKE_COMMAND} -E env TMPDIR=${PROJECT_BINARY_DIR}/hip-tmp
				${SZ_HIP_COMPILE})
		endif()
		# Keep the targets this compiler can build (ROCm 5.2 has no gfx942 or gfx1200).
		set(SZ_HIP_OFFLOAD)
		set(SZ_HIP_BUILT)
		file(WRITE ${PROJECT_BINARY_DIR}/sz_hip_probe.hip
			"__attribute__((global)) void k(int *p) { p[__builtin_amdgcn_workitem_id_x()] = 1; }\n")
		foreach(arch ${SPLITZIP_HIP_ARCHS})
			execute_process(COMMAND ${SZ_HIP_COMPILE} --offload-arch=${arch}
				--cuda-device-only -c ${PROJECT_BINARY_DIR}/sz_hip_probe.hip
				-o ${PROJECT_BINARY_DIR}/sz_hip_probe.o
				RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
			if(rc EQUAL 0)
				list(APPEND SZ_HIP_OFFLOAD --offload-arch=${arch})
				list(APPEND SZ_HIP_BUILT ${arch})
			else()
				message(STATUS "splitzip: ${SZ_HIP_CXX} cannot build ${arch}; left out")
			endif()
		endforeach()
		if(SZ_HIP_BUILT)
			set(SPLITZIP_HAVE_HIP 1)
		endif()
	endif()
	if(NOT SPLITZIP_HAVE_HIP AND SPLITZIP_WITH_HIP STREQUAL "ON")
		message(FATAL_ERROR "SPLITZIP_WITH_HIP=ON but no HIP compiler builds the HIP module "
			"(Debian: apt-get install clang-19 lld-19 libamdhip64-dev; ROCm: set ROCM_PATH or "
			"SPLITZIP_HIP_COMPILER)")
	endif()
endif()
if(SPLITZIP_HAVE_HIP)
	set(SZ_HIP_OUT ${PROJECT_BINARY_DIR}/libsplitzip_hip.so)
	set(SZ_HIP_WERROR)
	if(SPLITZIP_WERROR)
		set(SZ_HIP_WERROR -Werror)
	endif()
	add_custom_command(OUTPUT ${SZ_HIP_OUT}
		COMMAND ${SZ_HIP_COMPILE} -std=c++17 -O3 -fPIC -shared -fvisibility=hidden -Wall
			${SZ_HIP_WERROR} ${SZ_HIP_OFFLOAD}
			-I${PROJECT_SOURCE_DIR}/backends/hip -I${PROJECT_SOURCE_DIR}/backends/gpu
			${PROJECT_SOURCE_DIR}/backends/hip/sz_hip.hip ${SZ_HIP_LINK} -o ${SZ_HIP_OUT}
		DEPENDS ${PROJECT_SOURCE_DIR}/backends/hip/sz_hip.hip
			${PROJECT_SOURCE_DIR}/backends/hip/sz_gpu_runtime.h ${SZ_GPU_SOURCES}
		COMMENT "Building the HIP module (${SZ_HIP_BUILT})"
		VERBATIM)
	add_custom_target(splitzip_hip ALL DEPENDS ${SZ_HIP_OUT})
	message(STATUS "splitzip: HIP module for ${SZ_HIP_BUILT} (${SZ_HIP_CXX})")
endif()

# The GPU benchmark (ci/gpu-check.sh runs it on a GPU machine; built here so CI compiles it).
if(SPLITZIP_HAVE_CUDA)
	add_executable(sz_gpu_bench ${PROJECT_SOURCE_DIR}/bench/sz_gpu_bench.cu)
	set_target_properties(sz_gpu_bench PROPERTIES CUDA_ARCHITECTURES "${SPLITZIP_CUDA_ARCHS}"
		CUDA_STANDARD 17)
	target_link_libraries(sz_gpu_bench PRIVATE splitzip)
	add_dependencies(sz_gpu_bench splitzip_cuda)
endif()
