"""The ctypes mirror matches runtime/halnorm_c.h (structs field by field,
enums, prototypes), the defaults come from halnorm_norm_options_init, the
descriptors carry element strides, and the library search says where it
looked."""

import ctypes
import os
import re
import tempfile
import unittest
from unittest import mock

import numpy as np
import torch

import halnorm
from halnorm import _capi, _library, _tensors
from support import main

HEADER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "runtime",
                      "halnorm_c.h")

# C field types -> the ctypes the mirror must use (enums are C ints).
C_TYPES = {"void*": ctypes.c_void_p, "halnorm_dtype": ctypes.c_int,
           "halnorm_device": ctypes.c_int, "int32_t": ctypes.c_int32, "float": ctypes.c_float,
           "int64_t[4]": _capi.c_tensor_dims}


def header():
    with open(HEADER, encoding="utf-8") as f:
        return re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)


def struct_fields(text, name):
    body = re.search(r"typedef struct \{([^}]*)\}\s*" + name + ";", text, re.S).group(1)
    fields = []
    for declaration in body.split(";"):
        declaration = " ".join(declaration.split())
        if not declaration:
            continue
        match = re.fullmatch(r"(?:const )?([\w ]+?)\s*(\*?)\s*(\w+)(\[\d+\])?", declaration)
        base, star, field, array = match.groups()
        fields.append((field, base + star + (array or "")))
    return fields


def enum_values(text, name):
    body = re.search(r"typedef enum (?:HALNORM_ENUM_BASE )?\{([^}]*)\}\s*" + name + ";", text,
                     re.S).group(1)
    return {k: int(v) for k, v in re.findall(r"(\w+)\s*=\s*(\d+)", body)}


class HeaderMirrorTest(unittest.TestCase):

    def test_tensor_struct(self):
        fields = struct_fields(header(), "halnorm_tensor")
        self.assertEqual([f for f, _ in fields], [f for f, _ in _capi.halnorm_tensor._fields_])
        for (field, c_type), (_, ctype) in zip(fields, _capi.halnorm_tensor._fields_):
            self.assertIs(ctype, C_TYPES[c_type], field)
        self.assertEqual(ctypes.sizeof(_capi.halnorm_tensor), 88)
        self.assertEqual(_capi.halnorm_tensor.shape.offset, 24)

    def test_options_struct(self):
        fields = struct_fields(header(), "halnorm_norm_options")
        mirrored = _capi.halnorm_norm_options._fields_
        self.assertEqual([f for f, _ in fields], [f for f, _ in mirrored])
        pointer = ctypes.POINTER(_capi.halnorm_tensor)
        for (field, c_type), (_, ctype) in zip(fields, mirrored):
            want = pointer if c_type == "halnorm_tensor*" else C_TYPES[c_type]
            self.assertIs(ctype, want, field)
        self.assertEqual(ctypes.sizeof(_capi.halnorm_norm_options), 48)

    def test_enums(self):
        text = header()
        self.assertEqual(enum_values(text, "halnorm_dtype"),
                         {f"HALNORM_{d.name}": d.value for d in halnorm.Dtype})
        self.assertEqual(enum_values(text, "halnorm_device"),
                         {f"HALNORM_{d.name}": d.value for d in halnorm.Device})
        self.assertEqual(enum_values(text, "halnorm_axes"),
                         {f"HALNORM_AXES_{a.name}": a.value for a in halnorm.Axes})
        self.assertEqual(enum_values(text, "halnorm_status"),
                         {name: code for code, name in halnorm._errors.STATUS_NAMES.items()})

    def test_prototypes_have_the_header_arity(self):
        declarations = dict(re.findall(r"\b(halnorm_\w+)\(([^)]*)\);", header()))
        self.assertEqual(set(declarations), set(_capi._PROTOTYPES))
        for name, params in declarations.items():
            params = params.strip()
            arity = 0 if params in ("", "void") else params.count(",") + 1
            self.assertEqual(len(_capi._PROTOTYPES[name][1]), arity, name)

    def test_defaults_come_from_the_library(self):
        api = _capi.api()
        options = api.default_options
        self.assertEqual(api.default("eps"), 1e-5)
        self.assertEqual(options.normalized_rank, 1)
        self.assertEqual(options.weight_offset, 0.0)
        self.assertEqual(options.residual_alpha, 1.0)
        self.assertFalse(options.residual)
        self.assertFalse(options.residual_out)
        self.assertIsNone(options.cuda_stream)


class DescriptorTest(unittest.TestCase):

    def test_torch_view_strides_in_elements(self):
        buffer = torch.zeros(2, 5, 3, 8, dtype=torch.bfloat16)
        view = buffer.transpose(1, 2)[:, :, 1:]
        t = _tensors.describe(view, "x", "test")
        self.assertEqual(t.dtype, halnorm.Dtype.BF16)
        self.assertEqual(t.device, halnorm.Device.CPU)
        self.assertEqual(t.rank, 4)
        self.assertEqual(tuple(t.shape), (2, 3, 4, 8))
        self.assertEqual(tuple(t.strides), (120, 8, 24, 1))
        self.assertEqual(t.data, view.data_ptr())
        self.assertEqual(t.data - buffer.data_ptr(), 24 * 2)  # storage offset, in bytes

    def test_numpy_strides_in_elements(self):
        a = np.zeros((6, 10), np.float16)[::3, 2:]
        t = _tensors.describe(a, "x", "test")
        self.assertEqual((t.dtype, t.rank), (halnorm.Dtype.F16, 2))
        self.assertEqual(tuple(t.shape), (2, 8, 0, 0))
        self.assertEqual(tuple(t.strides), (30, 1, 0, 0))
        self.assertEqual(t.data, a.ctypes.data)


class LibrarySearchTest(unittest.TestCase):

    def test_loaded_from_runfiles_or_the_environment(self):
        path = halnorm.library_path()
        self.assertTrue(path.endswith(os.path.join("runtime", "libhalnorm.so")) or
                        path == os.environ.get("HALNORM_LIBRARY"), path)
        self.assertIn("built-in table", halnorm.tuning_source())

    def test_explicit_path_that_does_not_exist(self):
        with mock.patch.dict(os.environ, {"HALNORM_LIBRARY": "/no/such/libhalnorm.so"}):
            with self.assertRaisesRegex(halnorm.LibraryNotFoundError,
                                        r"\$HALNORM_LIBRARY=/no/such/libhalnorm.so does not exist"):
                _library.find()

    def test_library_for_another_cpu_is_skipped(self):
        with tempfile.TemporaryDirectory() as folder:
            foreign = os.path.join(folder, "libhalnorm.so")
            machine = 183 if _library.platform.machine() == "x86_64" else 62
            with open(foreign, "wb") as f:
                f.write(b"\x7fELF\x02\x01\x01" + bytes(11) + machine.to_bytes(2, "little"))
            with mock.patch.dict(os.environ, {"HALNORM_LIBRARY": foreign}):
                with self.assertRaisesRegex(halnorm.LibraryNotFoundError, "built for"):
                    _library.find()
            env = {k: v for k, v in os.environ.items()
                   if k not in ("HALNORM_LIBRARY", "RUNFILES_DIR", "TEST_SRCDIR",
                                "RUNFILES_MANIFEST_FILE")}
            with mock.patch.dict(os.environ, env, clear=True), \
                    mock.patch.object(_library, "_PACKAGE_DIR", folder), \
                    mock.patch.object(_library, "_WORKSPACE_DIR", os.path.join(folder, "ws")), \
                    mock.patch.object(_library.sys, "argv", [""]):
                with self.assertRaises(halnorm.LibraryNotFoundError) as caught:
                    _library.find()
        message = str(caught.exception)
        self.assertIn("$HALNORM_LIBRARY (unset)", message)
        self.assertIn(f"{foreign} (built for", message)
        self.assertIn(os.path.join(folder, "ws", "runtime", "libhalnorm.so") + " (not found)",
                      message)
        self.assertIn(os.path.join(folder, "ws", "bazel-bin", "runtime", "libhalnorm.so"), message)

    def test_runfiles_manifest(self):
        with tempfile.TemporaryDirectory() as folder:
            manifest = os.path.join(folder, "MANIFEST")
            with open(manifest, "w") as f:
                f.write(f"halnorm/other x\nhalnorm/runtime/libhalnorm.so {folder}/lib.so\n")
            with mock.patch.dict(os.environ, {"RUNFILES_MANIFEST_FILE": manifest}):
                self.assertIn(f"{folder}/lib.so", _library.candidates())

    def test_tuning_file_errors_name_the_path(self):
        with self.assertRaisesRegex(halnorm.InvalidArgumentError, "/no/such.tuning"):
            halnorm.load_tuning_file("/no/such.tuning")
        self.assertIn("built-in table", halnorm.tuning_source())


if __name__ == "__main__":
    main()
