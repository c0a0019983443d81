"""Model building: convert, fine-tune, export, optimize and quantize.

Everything here needs the ``train`` extra (torch, onnx); the worker never imports it.
"""
