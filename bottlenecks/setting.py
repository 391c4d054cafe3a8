"""The setting a finding holds in: task family, model size and reward type. The diagnosis,
claims (evidence) and reported results (results) all speak of the same settings, so the
choices live here, below every app that uses them."""

from django.db import models


class TaskFamily(models.TextChoices):
    MATH = "math", "Math and logical reasoning"
    CODE = "code", "Code and software engineering"
    AGENTIC = "agentic", "Agents and tool use"
    MULTIMODAL = "multimodal", "Vision and multimodal"
    GENERAL = "general", "General chat and instruction following"


class ModelSize(models.TextChoices):
    SMALL = "small", "Under 10B parameters"
    MEDIUM = "medium", "10B to 100B parameters"
    LARGE = "large", "Over 100B parameters"


class RewardType(models.TextChoices):
    VERIFIABLE = "verifiable", "Verifiable (graders, tests, checkers)"
    LEARNED = "learned", "Learned reward model"
    HUMAN = "human", "Human feedback"
