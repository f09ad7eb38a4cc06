# The GPU modules, included by the top-level CMakeLists.txt before splitzip_config.h is written.
#
#   libsplitzip_cuda.so  nvcc through CMake's CUDA language; cudart linked statically, so the
#                        module loads on machines without a CUDA toolkit (and reports no device)
#   libsplitzip_hip.so   hipcc called directly (Debian's hipcc is not a CMake HIP compiler)
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
set(SPLITZIP_HIP_ARCHS "gfx90a;gfx1030;gfx1100" CACHE STRING "AMD targets of the HIP module")

set(SZ_GPU_SOURCES
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_compat.cuh
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_args.h
	${PROJECT_SOURCE_DIR}/backends/gpu/sz_gpu_kernels.cuh
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
	# Spills would show in -Xptxas -v; make them warnings (errors with SPLITZIP_WERROR).
	target_compile_options(splitzip_cuda PRIVATE -Xptxas=--warn-on-spills
		$<$<BOOL:${SPLITZIP_WERROR}>:--Werror=all-warnings>)
	message(STATUS "splitzip: CUDA module for ${SPLITZIP_CUDA_ARCHS}")
endif()

# ---- HIP -----------------------------------------------------------------------------------
if(NOT SPLITZIP_WITH_HIP STREQUAL "OFF")
	find_program(SPLITZIP_HIPCC hipcc)
	if(SPLITZIP_HIPCC)
		# Keep the targets this ROCm can build code objects for (Debian's ROCm 5.2 has no
		# gfx1100 device library; ci/gpu-compile-check.sh still checks the source for it).
		set(SZ_HIP_OFFLOAD)
		set(SZ_HIP_BUILT)
		file(WRITE ${PROJECT_BINARY_DIR}/sz_hip_probe.hip
			"#include <hip/hip_runtime.h>\n__global__ void k(int *p) { p[threadIdx.x] = 1; }\n")
		foreach(arch ${SPLITZIP_HIP_ARCHS})
			execute_process(COMMAND ${SPLITZIP_HIPCC} -x hip --offload-arch=${arch} -c
				${PROJECT_BINARY_DIR}/sz_hip_probe.hip -o ${PROJECT_BINARY_DIR}/sz_hip_probe.o
				RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET)
			if(rc EQUAL 0)
				list(APPEND SZ_HIP_OFFLOAD --offload-arch=${arch})
				list(APPEND SZ_HIP_BUILT ${arch})
			else()
				message(STATUS "splitzip: hipcc cannot build ${arch} here; left out")
			endif()
		endforeach()
		if(SZ_HIP_BUILT)
			set(SPLITZIP_HAVE_HIP 1)
		endif()
	endif()
	if(NOT SPLITZIP_HAVE_HIP AND SPLITZIP_WITH_HIP STREQUAL "ON")
		message(FATAL_ERROR "SPLITZIP_WITH_HIP=ON but hipcc cannot build the HIP module")
	endif()
endif()
if(SPLITZIP_HAVE_HIP)
	set(SZ_HIP_OUT ${PROJECT_BINARY_DIR}/libsplitzip_hip.so)
	set(SZ_HIP_WERROR)
	if(SPLITZIP_WERROR)
		set(SZ_HIP_WERROR -Werror)
	endif()
	add_custom_command(OUTPUT ${SZ_HIP_OUT}
		COMMAND ${SPLITZIP_HIPCC} -std=c++17 -O3 -fPIC -shared -fvisibility=hidden -Wall
			${SZ_HIP_WERROR} ${SZ_HIP_OFFLOAD}
			-I${PROJECT_SOURCE_DIR}/backends/hip -I${PROJECT_SOURCE_DIR}/backends/gpu
			-x hip ${PROJECT_SOURCE_DIR}/backends/hip/sz_hip.hip -o ${SZ_HIP_OUT}
		DEPENDS ${PROJECT_SOURCE_DIR}/backends/hip/sz_hip.hip
			${PROJECT_SOURCE_DIR}/backends/hip/sz_gpu_runtime.h ${SZ_GPU_SOURCES}
		COMMENT "Building the HIP module (${SZ_HIP_BUILT})"
		VERBATIM)
	add_custom_target(splitzip_hip ALL DEPENDS ${SZ_HIP_OUT})
	message(STATUS "splitzip: HIP module for ${SZ_HIP_BUILT}")
endif()

# The GPU benchmark (ci/gpu-check.sh runs it on a GPU machine; built here so CI compiles it).
if(SPLITZIP_HAVE_CUDA)
	add_executable(sz_gpu_bench ${PROJECT_SOURCE_DIR}/bench/sz_gpu_bench.cu)
	set_target_properties(sz_gpu_bench PROPERTIES CUDA_ARCHITECTURES "${SPLITZIP_CUDA_ARCHS}"
		CUDA_STANDARD 17)
	target_link_libraries(sz_gpu_bench PRIVATE splitzip)
	add_dependencies(sz_gpu_bench splitzip_cuda)
endif()
