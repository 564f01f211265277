"""ddpdoctor inside training frameworks: Lightning, the Hugging Face Trainer (and Accelerate, documented).

Each framework's module imports the framework when it is imported itself; `import ddpdoctor`
never imports these modules. See docs/integrations.md.
"""
